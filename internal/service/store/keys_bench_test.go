package store

import (
	"context"
	"testing"
)

// BenchmarkKeyHash is what hashing adds to each authenticated request.
func BenchmarkKeyHash(b *testing.B) {
	key := NewSecret("ck_")
	for b.Loop() {
		_ = KeyHash(key)
	}
}

// BenchmarkLookupKey is a whole authentication on SQLite: the hash and the
// indexed read.
func BenchmarkLookupKey(b *testing.B) {
	s, err := Open(context.Background(), b.TempDir(), WithMasterKey(testMasterKey))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	key, err := s.CreateKey(context.Background(), "org", "u")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.LookupKey(context.Background(), key); err != nil {
			b.Fatal(err)
		}
	}
}
