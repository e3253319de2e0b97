package store

import (
	"errors"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// TestInstallation: a new database records no installation; the first
// claim wins and a second one (another process starting at once) reads it
// back; the mark records where the marker was written; a database with a
// key in it holds user data, a new one none. On both engines.
func TestInstallation(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		s, _ := be.open(t)
		ctx := t.Context()
		if _, err := s.Installation(ctx); !errors.Is(err, ErrNoInstallation) {
			t.Fatalf("a new database's installation: %v, want ErrNoInstallation", err)
		}
		if has, err := s.HasUserData(ctx); err != nil || has {
			t.Fatalf("a new database has user data = %v (%v), want false", has, err)
		}
		first, err := s.ClaimInstallation(ctx, "inst_a", "/srv/a")
		if err != nil || first.ID != "inst_a" || first.Media != "/srv/a" || first.Marked {
			t.Fatalf("first claim = %+v (%v), want inst_a at /srv/a, unmarked", first, err)
		}
		second, err := s.ClaimInstallation(ctx, "inst_b", "/srv/b")
		if err != nil || second.ID != "inst_a" {
			t.Fatalf("second claim = %+v (%v), want the first's inst_a", second, err)
		}
		if err := s.MarkInstallation(ctx, "inst_b", "/srv/b"); err == nil {
			t.Error("marking another installation's id succeeded")
		}
		if err := s.MarkInstallation(ctx, "inst_a", "s3://clips/prod"); err != nil {
			t.Fatal(err)
		}
		got, err := s.Installation(ctx)
		if err != nil || !got.Marked || got.Media != "s3://clips/prod" || got.CreatedAt.IsZero() {
			t.Fatalf("after the mark: %+v (%v), want marked at s3://clips/prod with a creation time", got, err)
		}
		if _, err := s.CreateKey(ctx, "org", "user"); err != nil {
			t.Fatal(err)
		}
		if has, err := s.HasUserData(ctx); err != nil || !has {
			t.Fatalf("a database with a key has user data = %v (%v), want true", has, err)
		}
		have, want, err := s.SchemaVersion(ctx)
		if err != nil || have != want || want != len(migrations) {
			t.Fatalf("schema version = %d of %d (%v), want %d", have, want, err, len(migrations))
		}
	})
}

// TestOpenAsIs: a database opened as it is gets no schema (version 0, no
// sealed secret); after a normal open it reads the version of this
// release, and another master key fails CheckMasterKey. On both engines.
func TestOpenAsIs(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := t.Context()
		loc := be.Location(t)
		raw, err := Open(ctx, loc, WithMasterKey(testMasterKey), AsIs())
		if err != nil {
			t.Fatal(err)
		}
		have, want, err := raw.SchemaVersion(ctx)
		if err != nil || have != 0 || want != len(migrations) {
			t.Errorf("a new database opened as is: version %d of %d (%v), want 0 of %d", have, want, err, len(migrations))
		}
		if sealed, err := raw.CheckMasterKey(ctx); err != nil || sealed {
			t.Errorf("a new database's secrets: sealed %v (%v), want none", sealed, err)
		}
		_ = raw.Close()

		s, err := Open(ctx, loc, WithMasterKey(testMasterKey))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.MediaKey(ctx); err != nil {
			t.Fatal(err)
		}
		_ = s.Close()
		other := storetest.MasterKey()
		raw, err = Open(ctx, loc, WithMasterKey(other), AsIs())
		if err != nil {
			t.Fatalf("open as is with another key: %v", err)
		}
		defer raw.Close()
		if have, _, err := raw.SchemaVersion(ctx); err != nil || have != len(migrations) {
			t.Errorf("version after a normal open: %d (%v), want %d", have, err, len(migrations))
		}
		if sealed, err := raw.CheckMasterKey(ctx); !sealed || !errors.Is(err, masterkey.ErrWrongKey) {
			t.Errorf("another key: sealed %v, %v; want sealed and ErrWrongKey", sealed, err)
		}
	})
}
