package store

import (
	"testing"
	"time"
)

// TestKeysCarryTheirCreationTime: Keys reads each key's creation as a
// time (the store's clock at CreateKey, to the millisecond it is stored
// with), on both engines.
func TestKeysCarryTheirCreationTime(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		first := time.Date(2026, 11, 23, 1, 2, 3, 456789000, time.UTC)
		s.SetClock(func() time.Time { return first })
		if _, err := s.CreateKey(t.Context(), "org-a", "ann"); err != nil {
			t.Fatal(err)
		}
		s.SetClock(func() time.Time { return first.Add(time.Hour) })
		if _, err := s.CreateKey(t.Context(), "org-a", "bob"); err != nil {
			t.Fatal(err)
		}
		keys, err := s.Keys(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		want := []time.Time{first.Truncate(time.Millisecond), first.Add(time.Hour).Truncate(time.Millisecond)}
		if len(keys) != len(want) {
			t.Fatalf("Keys = %d keys, want %d", len(keys), len(want))
		}
		for i, k := range keys {
			if !k.CreatedAt.Equal(want[i]) {
				t.Errorf("key %d (%s) created at %v, want %v", i, k.UserID, k.CreatedAt, want[i])
			}
		}
	})
}
