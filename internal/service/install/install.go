// Package install holds an installation together: its database records an
// installation id (store.Installation) and its media carry a marker object
// with the same id (blob.InstallationMarkerKey). Every process checks the
// two at start (Ensure) and refuses to start when they disagree, or when
// the media hold no marker beside a database that says they should: a
// worker given a mistyped bucket prefix, or another installation's media,
// would otherwise render into the wrong place and mark the work done. The
// first process of a new installation, or of one an older release made,
// writes both. Probe learns at start that the media's credentials may
// write, read and delete, before any job is claimed.
package install

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// Errors of Ensure and Verify, found with errors.Is.
var (
	// ErrMismatch: the media carry the marker of another installation than
	// the database's (or the database records none beside a marker).
	ErrMismatch = errors.New("the database and the media belong to different installations")
	// ErrNoMarker: the database records an installation whose marker was
	// written, and the media hold none.
	ErrNoMarker = errors.New("the media hold no marker of the database's installation")
	// ErrCannotWrite: the media refused a write, a read back or a delete.
	ErrCannotWrite = errors.New("the media cannot be written with these credentials")
)

// Locations name the database and the media for messages, without
// credentials (store.DescribeLocation; a directory or an s3:// address).
type Locations struct {
	Database, Media string
}

// Marker is the content of the marker object.
type Marker struct {
	Installation string    `json:"installation"`
	Database     string    `json:"database"` // where the database was when the marker was written
	CreatedAt    time.Time `json:"created_at"`
}

// Ensure checks that st and media belong to one installation and returns
// it. A database that records none yet (new, or made by an older release)
// is given one, and the media its marker: the media this process starts
// with are adopted, logged at INFO. A database recording an installation
// whose marker the media lack is ErrNoMarker; a marker of another
// installation, or a marker beside a database recording none, is
// ErrMismatch. Errors name both locations.
func Ensure(ctx context.Context, st *store.Store, media blob.Store, at Locations, logger *slog.Logger) (store.Installation, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	in, err := st.Installation(ctx)
	if err != nil && !errors.Is(err, store.ErrNoInstallation) {
		return store.Installation{}, fmt.Errorf("database %s: %w", at.Database, err)
	}
	marker, err := ReadMarker(ctx, media)
	if err != nil {
		return store.Installation{}, fmt.Errorf("media %s: %w", at.Media, err)
	}
	if in.ID == "" {
		if marker != nil {
			return store.Installation{}, fmt.Errorf("%w: the media %s carry the marker of installation %s (its database was %s), "+
				"but the database %s records no installation: give the database of those media, or media of their own",
				ErrMismatch, at.Media, marker.Installation, marker.Database, at.Database)
		}
		used, err := st.HasUserData(ctx)
		if err != nil {
			return store.Installation{}, fmt.Errorf("database %s: %w", at.Database, err)
		}
		id := newID("inst_")
		if in, err = st.ClaimInstallation(ctx, id, at.Media); err != nil {
			return store.Installation{}, fmt.Errorf("database %s: %w", at.Database, err)
		}
		switch {
		case in.ID != id: // another process claimed it first
		case used:
			logger.Info("installation: the database, made by an older release, adopts the media this process starts with; "+
				"every process must give the same media from now on", "installation", id, "database", at.Database, "media", at.Media)
		default:
			logger.Info("installation: new", "installation", id, "database", at.Database, "media", at.Media)
		}
	}
	switch {
	case marker == nil && in.Marked:
		return store.Installation{}, fmt.Errorf("%w: the database %s belongs to installation %s, whose media were last seen at %s, "+
			"and the media %s hold no marker (%s): every process of an installation needs the same media, bucket prefix included",
			ErrNoMarker, at.Database, in.ID, in.Media, at.Media, blob.InstallationMarkerKey)
	case marker == nil:
		// Recorded, never marked: a new installation, or a start that
		// stopped between the two.
		if err := writeMarker(ctx, media, Marker{Installation: in.ID, Database: at.Database, CreatedAt: st.Now()}); err != nil {
			return store.Installation{}, fmt.Errorf("media %s: %w", at.Media, err)
		}
	case marker.Installation != in.ID:
		return store.Installation{}, fmt.Errorf("%w: the database %s belongs to installation %s (its media were last seen at %s), "+
			"the media %s to installation %s (its database was %s)",
			ErrMismatch, at.Database, in.ID, in.Media, at.Media, marker.Installation, marker.Database)
	}
	if !in.Marked || in.Media != at.Media {
		if err := st.MarkInstallation(ctx, in.ID, at.Media); err != nil {
			return store.Installation{}, fmt.Errorf("database %s: %w", at.Database, err)
		}
		in.Marked, in.Media = true, at.Media
	}
	return in, nil
}

// Verify is Ensure that writes nothing, for `clipperd check`. A database
// that records no installation yet, beside media without a marker, is no
// error (the next start adopts the media): it returns the zero
// Installation.
func Verify(ctx context.Context, st *store.Store, media blob.Store, at Locations) (store.Installation, error) {
	in, err := st.Installation(ctx)
	if err != nil && !errors.Is(err, store.ErrNoInstallation) {
		return store.Installation{}, fmt.Errorf("database %s: %w", at.Database, err)
	}
	marker, err := ReadMarker(ctx, media)
	if err != nil {
		return store.Installation{}, fmt.Errorf("media %s: %w", at.Media, err)
	}
	switch {
	case in.ID == "" && marker != nil:
		return store.Installation{}, fmt.Errorf("%w: the media %s carry the marker of installation %s (its database was %s), "+
			"but the database %s records no installation", ErrMismatch, at.Media, marker.Installation, marker.Database, at.Database)
	case marker == nil && in.Marked:
		return store.Installation{}, fmt.Errorf("%w: the database %s belongs to installation %s, whose media were last seen at %s, "+
			"and the media %s hold no marker (%s)", ErrNoMarker, at.Database, in.ID, in.Media, at.Media, blob.InstallationMarkerKey)
	case marker != nil && marker.Installation != in.ID:
		return store.Installation{}, fmt.Errorf("%w: the database %s belongs to installation %s (its media were last seen at %s), "+
			"the media %s to installation %s (its database was %s)",
			ErrMismatch, at.Database, in.ID, in.Media, at.Media, marker.Installation, marker.Database)
	}
	return in, nil
}

// maxMarker bounds the marker read: it is a few hundred bytes.
const maxMarker = 64 << 10

// ReadMarker reads the media's marker, nil when there is none.
func ReadMarker(ctx context.Context, media blob.Store) (*Marker, error) {
	r, err := media.Open(ctx, blob.InstallationMarkerKey)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the installation marker %s: %w", blob.InstallationMarkerKey, err)
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxMarker))
	if err != nil {
		return nil, fmt.Errorf("read the installation marker %s: %w", blob.InstallationMarkerKey, err)
	}
	var m Marker
	if err := json.Unmarshal(b, &m); err != nil || m.Installation == "" {
		return nil, fmt.Errorf("the installation marker %s is damaged (%q): remove it to adopt these media", blob.InstallationMarkerKey, truncate(b, 80))
	}
	return &m, nil
}

func writeMarker(ctx context.Context, media blob.Store, m Marker) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := blob.Write(ctx, media, blob.InstallationMarkerKey, bytes.NewReader(append(b, '\n'))); err != nil {
		return fmt.Errorf("%w: write the installation marker %s: %w", ErrCannotWrite, blob.InstallationMarkerKey, err)
	}
	return nil
}

// Probe writes an object under the media, reads it back and deletes it:
// credentials that may read but not write (or not delete) are refused at
// start, not by the first job they fail. The error names the location.
func Probe(ctx context.Context, media blob.Store, where string) error {
	key := blob.ProbeKey(newID(""))
	body := []byte("clipperd start probe " + key + "\n")
	fail := func(step string, err error) error {
		return fmt.Errorf("media %s: %w: %s the probe object %s: %w (the credentials must write, read and delete objects under the media)",
			where, ErrCannotWrite, step, key, err)
	}
	if err := blob.Write(ctx, media, key, bytes.NewReader(body)); err != nil {
		return fail("write", err)
	}
	r, err := media.Open(ctx, key)
	if err != nil {
		_ = media.Delete(ctx, key)
		return fail("read back", err)
	}
	got, err := io.ReadAll(r)
	_ = r.Close()
	if err == nil && !bytes.Equal(got, body) {
		err = fmt.Errorf("read %d bytes that differ from the %d written", len(got), len(body))
	}
	if err != nil {
		_ = media.Delete(ctx, key)
		return fail("read back", err)
	}
	if err := media.Delete(ctx, key); err != nil {
		return fail("delete", err)
	}
	return nil
}

// newID is a random installation or probe id.
func newID(prefix string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
