package store

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"
)

func TestGallerySessionLivesUntilExpiryLogoutOrRevocation(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		s.SetClock(func() time.Time { return now })
		keyA, err := s.CreateKey(ctx, "org", "a")
		if err != nil {
			t.Fatal(err)
		}
		keyB, err := s.CreateKey(ctx, "org", "b")
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"s1", "s2"} {
			if err := s.CreateGallerySession(ctx, id, Key{Hash: KeyHash(keyA), OrgID: "org"}, now.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.CreateGallerySession(ctx, "s3", Key{Hash: KeyHash(keyB), OrgID: "org"}, now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if k, err := s.GallerySession(ctx, "s1", now); err != nil || k.Hash != KeyHash(keyA) || k.UserID != "a" {
			t.Fatalf("live session: %+v, %v", k, err)
		}
		// Sessions and keys keep no key: a copy of the database opens none.
		if dump := dumpTables(t, s, "gallery_sessions", "api_keys"); bytes.Contains(dump, []byte(keyA)) || bytes.Contains(dump, []byte(keyB)) {
			t.Error("a key is stored in the clear")
		}
		if _, err := s.GallerySession(ctx, "s1", now.Add(time.Hour)); !errors.Is(err, ErrNotFound) {
			t.Errorf("session at its expiry: %v, want ErrNotFound", err)
		}
		if err := s.DeleteGallerySession(ctx, "s1"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GallerySession(ctx, "s1", now); !errors.Is(err, ErrNotFound) {
			t.Errorf("deleted session: %v, want ErrNotFound", err)
		}
		if err := s.RevokeKey(ctx, KeyHash(keyA)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GallerySession(ctx, "s2", now); !errors.Is(err, ErrNotFound) {
			t.Errorf("session of a revoked key: %v, want ErrNotFound", err)
		}
		if k, err := s.GallerySession(ctx, "s3", now); err != nil || k.Hash != KeyHash(keyB) {
			t.Errorf("another key's session after the revocation: %+v, %v", k, err)
		}
		if n := countRows(t, s, "gallery_sessions"); n != 1 {
			t.Errorf("%d sessions stored after the revocation, want the other key's only", n)
		}
	})
}

func TestExpiredGallerySessionsAreSweptAtTheNextLogin(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		s.SetClock(func() time.Time { return now })
		key := Key{Hash: KeyHash("ck_x"), OrgID: "org"}
		if err := s.CreateGallerySession(ctx, "old", key, now.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Minute)
		if err := s.CreateGallerySession(ctx, "new", key, now.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if n := countRows(t, s, "gallery_sessions"); n != 1 {
			t.Fatalf("%d sessions stored, want only the live one", n)
		}
	})
}

func countRows(t *testing.T, s *Store, table string) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
