package install

import (
	"bytes"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/miniotest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/s3blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

var testKey = storetest.MasterKey()

// engines are the databases the checks run on: a new SQLite file and a new
// PostgreSQL database.
var engines = []struct {
	name     string
	location func(t *testing.T) string
}{
	{store.EngineSQLite, func(t *testing.T) string { return filepath.Join(t.TempDir(), store.DefaultFile) }},
	{store.EnginePostgres, func(t *testing.T) string { return storetest.PostgresURL(t) }},
}

func openStore(t *testing.T, location string) *store.Store {
	t.Helper()
	st, err := store.Open(t.Context(), location, store.WithMasterKey(testKey))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func dir(t *testing.T) *blob.Dir {
	t.Helper()
	d, err := blob.NewDir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestEnsure: the first start records an id and writes the marker; a later
// start with the same pair passes and with other media (a mistyped
// directory) is ErrNoMarker naming both locations; media of another
// installation are ErrMismatch, and so are marked media beside a new
// database. Verify agrees and writes nothing. On both engines.
func TestEnsure(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			ctx := t.Context()
			loc := e.location(t)
			st := openStore(t, loc)
			media := dir(t)
			at := Locations{Database: store.DescribeLocation(loc), Media: media.Root()}
			var log bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&log, nil))

			if in, err := Verify(ctx, st, media, at); err != nil || in.ID != "" {
				t.Fatalf("Verify of a new installation = %+v, %v; want none and no error", in, err)
			}
			first, err := Ensure(ctx, st, media, at, logger)
			if err != nil || !strings.HasPrefix(first.ID, "inst_") || !first.Marked {
				t.Fatalf("first Ensure = %+v, %v; want a marked inst_ id", first, err)
			}
			if !strings.Contains(log.String(), `msg="installation: new"`) {
				t.Errorf("the first start logged no new installation:\n%s", log.String())
			}
			m, err := ReadMarker(ctx, media)
			if err != nil || m == nil || m.Installation != first.ID || m.Database != at.Database {
				t.Fatalf("marker = %+v, %v; want %s of %s", m, err, first.ID, at.Database)
			}
			again, err := Ensure(ctx, st, media, at, logger)
			if err != nil || again.ID != first.ID {
				t.Fatalf("second Ensure = %+v, %v; want %s", again, err, first.ID)
			}
			if _, err := Verify(ctx, st, media, at); err != nil {
				t.Fatalf("Verify of a good pair: %v", err)
			}

			typo := dir(t)
			atTypo := Locations{Database: at.Database, Media: typo.Root()}
			_, err = Ensure(ctx, st, typo, atTypo, logger)
			if !errors.Is(err, ErrNoMarker) || !strings.Contains(err.Error(), typo.Root()) ||
				!strings.Contains(err.Error(), at.Database) || !strings.Contains(err.Error(), media.Root()) {
				t.Errorf("Ensure with other media = %v; want ErrNoMarker naming the database, the media given and the media recorded", err)
			}
			if _, err := Verify(ctx, st, typo, atTypo); !errors.Is(err, ErrNoMarker) {
				t.Errorf("Verify with other media = %v; want ErrNoMarker", err)
			}
			if m, _ := ReadMarker(ctx, typo); m != nil {
				t.Errorf("a refused start wrote a marker in the wrong media: %+v", m)
			}

			// Another installation's database beside these media, and a new
			// database beside them.
			other := openStore(t, e.location(t))
			otherMedia := dir(t)
			atOther := Locations{Database: "other-db", Media: otherMedia.Root()}
			if _, err := Ensure(ctx, other, otherMedia, atOther, logger); err != nil {
				t.Fatal(err)
			}
			_, err = Ensure(ctx, st, otherMedia, Locations{Database: at.Database, Media: otherMedia.Root()}, logger)
			if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), otherMedia.Root()) || !strings.Contains(err.Error(), at.Database) {
				t.Errorf("Ensure with another installation's media = %v; want ErrMismatch naming both", err)
			}
			fresh := openStore(t, e.location(t))
			_, err = Ensure(ctx, fresh, media, Locations{Database: "fresh-db", Media: media.Root()}, logger)
			if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "fresh-db") || !strings.Contains(err.Error(), media.Root()) {
				t.Errorf("Ensure of a new database beside marked media = %v; want ErrMismatch naming both", err)
			}
			if _, err := fresh.Installation(ctx); !errors.Is(err, store.ErrNoInstallation) {
				t.Errorf("the refused new database records an installation: %v", err)
			}
		})
	}
}

// TestEnsureAdoptsAnOlderRelease: a database with keys and no installation
// (an older release made it) adopts the media it starts with, logged at
// INFO, and a start cut short between the record and the marker is
// finished by the next.
func TestEnsureAdoptsAnOlderRelease(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			ctx := t.Context()
			loc := e.location(t)
			st := openStore(t, loc)
			if _, err := st.CreateKey(ctx, "org", "user"); err != nil {
				t.Fatal(err)
			}
			media := dir(t)
			at := Locations{Database: store.DescribeLocation(loc), Media: media.Root()}
			var log bytes.Buffer
			in, err := Ensure(ctx, st, media, at, slog.New(slog.NewTextHandler(&log, nil)))
			if err != nil || !in.Marked {
				t.Fatalf("Ensure on an older release's database = %+v, %v", in, err)
			}
			if !strings.Contains(log.String(), "level=INFO") || !strings.Contains(log.String(), "older release") || !strings.Contains(log.String(), media.Root()) {
				t.Errorf("the adoption was not logged at INFO with the media:\n%s", log.String())
			}

			// Recorded, never marked.
			cut := openStore(t, e.location(t))
			if _, err := cut.ClaimInstallation(ctx, "inst_cut", "somewhere"); err != nil {
				t.Fatal(err)
			}
			cutMedia := dir(t)
			in, err = Ensure(ctx, cut, cutMedia, Locations{Database: "cut", Media: cutMedia.Root()}, nil)
			if err != nil || in.ID != "inst_cut" || !in.Marked || in.Media != cutMedia.Root() {
				t.Fatalf("Ensure after a cut-short start = %+v, %v; want inst_cut marked at %s", in, err, cutMedia.Root())
			}
			if m, _ := ReadMarker(ctx, cutMedia); m == nil || m.Installation != "inst_cut" {
				t.Errorf("marker after the cut-short start: %+v", m)
			}
		})
	}
}

// TestProbeAndPrefixOnABucket, on a real MinIO: a process with the right
// bucket and prefix passes; a mistyped prefix is refused naming both
// places; read-only credentials fail the probe before anything else (and
// can read the marker); a directory probe passes.
func TestProbeAndPrefixOnABucket(t *testing.T) {
	srv := miniotest.Start(t)
	bucket := srv.NewBucket(t)
	open := func(prefix, access, secret, token string) (blob.Store, string) {
		t.Helper()
		cfg, err := s3blob.ParseURL(srv.URL(bucket, prefix))
		if err != nil {
			t.Fatal(err)
		}
		cfg.AccessKey, cfg.SecretKey, cfg.SessionToken = access, secret, token
		s, err := s3blob.New(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return s, cfg.String()
	}
	ctx := t.Context()
	loc := storetest.PostgresURL(t)
	st := openStore(t, loc)
	db := store.DescribeLocation(loc)

	prod, prodAt := open("prod", srv.AccessKey, srv.SecretKey, "")
	if err := Probe(ctx, prod, prodAt); err != nil {
		t.Fatalf("probe with full credentials: %v", err)
	}
	if objs, err := prod.List(ctx, "installation/"); err != nil || len(objs) != 0 {
		t.Errorf("the probe left %v (%v)", objs, err)
	}
	if _, err := Ensure(ctx, st, prod, Locations{Database: db, Media: prodAt}, nil); err != nil {
		t.Fatal(err)
	}

	typo, typoAt := open("prdo", srv.AccessKey, srv.SecretKey, "")
	_, err := Ensure(ctx, st, typo, Locations{Database: db, Media: typoAt}, nil)
	if !errors.Is(err, ErrNoMarker) || !strings.Contains(err.Error(), "s3://"+bucket+"/prdo") || !strings.Contains(err.Error(), "s3://"+bucket+"/prod") ||
		!strings.Contains(err.Error(), db) {
		t.Errorf("Ensure with the prefix prdo = %v; want ErrNoMarker naming prdo, prod and the database", err)
	}
	t.Logf("mistyped prefix: %v", err)

	access, secret, token := srv.ReadOnly(t, bucket)
	ro, roAt := open("prod", access, secret, token)
	err = Probe(ctx, ro, roAt)
	if !errors.Is(err, ErrCannotWrite) || !strings.Contains(err.Error(), roAt) || !strings.Contains(err.Error(), "Access Denied") {
		t.Errorf("probe with read-only credentials = %v; want ErrCannotWrite naming the media and the denial", err)
	}
	t.Logf("read-only credentials: %v", err)
	if _, err := Verify(ctx, st, ro, Locations{Database: db, Media: roAt}); err != nil {
		t.Errorf("read-only credentials cannot read the marker: %v", err)
	}

	if err := Probe(ctx, dir(t), "a directory"); err != nil {
		t.Errorf("probe of a directory: %v", err)
	}
}
