package datalock

import (
	"errors"
	"testing"
)

// Servers share the lock; a migration takes it alone, only when no server
// holds it, and keeps servers out until it releases it.
func TestSharedAndExclusive(t *testing.T) {
	dir := t.TempDir()
	a, err := Shared(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Shared(dir)
	if err != nil {
		t.Fatalf("a second server: %v", err)
	}
	if _, err := Exclusive(dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("exclusive while served: %v, want ErrLocked", err)
	}
	_ = a.Release()
	if _, err := Exclusive(dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("exclusive while one server is left: %v, want ErrLocked", err)
	}
	_ = b.Release()
	m, err := Exclusive(dir)
	if err != nil {
		t.Fatalf("exclusive once no server holds it: %v", err)
	}
	if _, err := Shared(dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("a server during the migration: %v, want ErrLocked", err)
	}
	_ = m.Release()
	s, err := Shared(dir)
	if err != nil {
		t.Fatalf("a server after the migration: %v", err)
	}
	_ = s.Release()
}
