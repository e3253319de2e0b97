package store

import (
	"errors"
	"testing"
)

// TestInstallation: a new database records no installation; the first
// claim wins and a second one (another process starting at once) reads it
// back; the mark records where the marker was written; a database with a
// key in it holds user data, a new one none. On both engines.
func TestInstallation(t *testing.T) {
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
