// Package migrate moves a single-box clipperd (the SQLite file and the
// media of its data directory) into a scale-out one (PostgreSQL and a
// bucket, or another directory): `clipperd migrate`. The moved
// installation answers every read as before, with the same ids, keys and
// media-signing key, so links handed out keep working.
//
// The media go first, object by object, skipping those already in place,
// then the rows, in one transaction (store.CopyTo): a move cut short in
// either part is finished by running it again, and a target whose
// database holds rows is refused, so nothing is copied twice or mixed.
// No job of the job system is copied: the target's processes give every
// unfinished row (a pending delivery or post, a RUNNING copy job, a
// QUEUED or PROCESSING censor job) a job at start, as they do after an
// upgrade, and its pipeline resumes the projects in flight at once: the
// copied leases are ended (the source is stopped; nobody renews them).
package migrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/datalock"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/install"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// Errors of Run, for the command to name its flags.
var (
	// ErrSourceInUse: a clipperd process serves from the source.
	ErrSourceInUse = errors.New("a clipperd process is running on the source data directory: stop it first")
	// ErrNoSource: the source holds no database.
	ErrNoSource = errors.New("no clipperd database in the source data directory")
	// ErrTargetNotEmpty: the target database holds rows already.
	ErrTargetNotEmpty = store.ErrTargetNotEmpty
	// ErrTargetMediaTaken: the target media carry the marker of another
	// installation than the source's (package install).
	ErrTargetMediaTaken = errors.New("the target media belong to another installation")
)

// Config says what to move where.
type Config struct {
	// From is the source's data directory; it must not be served while
	// Run runs (it is locked against a start meanwhile).
	From string
	// FromDatabase is the source's SQLite file; "" is From's clipperd.db.
	FromDatabase string
	// FromMedia is the source's media store; nil is From itself.
	FromMedia blob.Store
	// ToDatabase is the target database (a postgres:// URL), empty or
	// holding only a schema: Run applies the store's migrations to it.
	ToDatabase string
	// ToMedia is the target media store.
	ToMedia blob.Store
	// Progress, when set, hears of each object copied or skipped.
	Progress func(blob.Info, blob.CopyReport)
	// MasterKey opens the source's sealed secrets (required). They are
	// copied sealed, so every process of the target needs this key too.
	MasterKey *masterkey.Key
}

// Report says what Run moved and how long each part took.
type Report struct {
	Media        blob.CopyReport
	Rows         store.CopyReport
	MediaTime    time.Duration
	DatabaseTime time.Duration
	SourceFile   string // the source's database file
}

// Run moves the installation cfg names.
func Run(ctx context.Context, cfg Config) (Report, error) {
	var r Report
	if cfg.From == "" || cfg.ToDatabase == "" || cfg.ToMedia == nil || cfg.MasterKey == nil {
		return r, errors.New("migrate: From, ToDatabase, ToMedia and MasterKey are required")
	}
	lock, err := datalock.Exclusive(cfg.From)
	if errors.Is(err, datalock.ErrLocked) {
		return r, fmt.Errorf("%w (%v)", ErrSourceInUse, err)
	}
	if err != nil {
		return r, err
	}
	defer func() { _ = lock.Release() }()

	file := cfg.FromDatabase
	if file == "" {
		file = filepath.Join(cfg.From, store.DefaultFile)
	}
	// Opening a missing file would make an empty database: refuse instead.
	if fi, err := os.Stat(file); err != nil || fi.IsDir() {
		return r, fmt.Errorf("%w: %s: %v", ErrNoSource, file, err)
	}
	r.SourceFile = file
	// Opening applies this release's migrations, as serve would, so both
	// stores are at one schema version.
	src, err := store.Open(ctx, file, store.WithMasterKey(cfg.MasterKey))
	if err != nil {
		return r, fmt.Errorf("source database: %w", err)
	}
	defer src.Close()
	dst, err := store.Open(ctx, cfg.ToDatabase, store.WithMasterKey(cfg.MasterKey))
	if err != nil {
		return r, fmt.Errorf("target database: %w", err)
	}
	defer dst.Close()
	// Refused before any byte moves, not after the media.
	if err := dst.CheckEmpty(ctx); err != nil {
		return r, err
	}
	if err := checkTargetMedia(ctx, src, cfg.ToMedia); err != nil {
		return r, err
	}

	from := cfg.FromMedia
	if from == nil {
		if from, err = blob.NewDir(cfg.From, nil); err != nil {
			return r, fmt.Errorf("source media: %w", err)
		}
	}
	start := time.Now()
	r.Media, err = blob.CopyAll(ctx, cfg.ToMedia, from, blob.Roots(), blob.CopyWorkers, cfg.Progress)
	r.MediaTime = time.Since(start)
	if err != nil {
		return r, fmt.Errorf("media: %w", err)
	}
	sizes, err := postCopySizes(ctx, src, cfg.ToMedia)
	if err != nil {
		return r, err
	}
	start = time.Now()
	r.Rows, err = src.CopyToThen(ctx, dst, func(ctx context.Context, tx *sql.Tx) error {
		if err := store.SetPostStorage(sizes)(ctx, tx); err != nil {
			return err
		}
		return store.EndLeases()(ctx, tx)
	})
	r.DatabaseTime = time.Since(start)
	if err != nil {
		return r, fmt.Errorf("database: %w", err)
	}
	return r, nil
}

// publishedPosts lists the posts published to a directory (postCopySizes).
type publishedPosts interface {
	PublishedDirPosts(ctx context.Context) ([]store.Post, error)
}

// postCopySizes is what each published dir post's copy of its clip holds in
// the target media store apart from the clip: 0 where the store shares the
// bytes (a directory's hard link, as on the source), the copy's size in a
// bucket, which has none to share. The posts count it in their org's storage
// there as they would had they been published there.
func postCopySizes(ctx context.Context, src publishedPosts, media blob.Store) (map[string]int64, error) {
	posts, err := src.PublishedDirPosts(ctx)
	if err != nil {
		return nil, err
	}
	sizes := make(map[string]int64, len(posts))
	for _, p := range posts {
		size, err := blob.AddedBy(ctx, media, blob.PublishedClipKey(p.PostAccountID, p.ID), blob.MediaKey(p.ProjectID, p.ClipID+".mp4"))
		if errors.Is(err, blob.ErrNotFound) {
			size, err = 0, nil // the copy went with its project's expired media
		}
		if err != nil {
			return nil, fmt.Errorf("post %s: the size of its copy: %w", p.ID, err)
		}
		sizes[p.ID] = size
	}
	return sizes, nil
}

// checkTargetMedia refuses target media that carry another installation's
// marker: the copy would skip the source's marker (same key, maybe the
// same size) and leave the moved installation refused at every start. The
// source's own marker there is a migration run again.
func checkTargetMedia(ctx context.Context, src *store.Store, to blob.Store) error {
	m, err := install.ReadMarker(ctx, to)
	if err != nil || m == nil {
		return err
	}
	in, err := src.Installation(ctx)
	if err != nil && !errors.Is(err, store.ErrNoInstallation) {
		return fmt.Errorf("source database: %w", err)
	}
	if in.ID == m.Installation {
		return nil
	}
	return fmt.Errorf("%w: they carry the marker of installation %s (its database was %s): give media of their own",
		ErrTargetMediaTaken, m.Installation, m.Database)
}
