package store

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"
)

// A database that cannot grow fails writes with SQLite's own "database or
// disk is full", which IsFull recognises through the wrapping of callers;
// lifting the cap makes the same write pass.
func TestIsFullOnAFullDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := openTest(t)
	fillDatabase(t, s)
	err := s.SaveUpload(ctx, &Upload{ID: "up_full", OrgID: "o", UserID: "u", Key: strings.Repeat("x", 64<<10), Total: -1})
	if err == nil || !strings.Contains(err.Error(), "database or disk is full") {
		t.Fatalf("write to a full database: %v, want SQLite's full error", err)
	}
	if !IsFull(fmt.Errorf("create upload link: %w", err)) {
		t.Errorf("IsFull(%v) = false", err)
	}
	if err := s.LimitSize(ctx, true); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveUpload(ctx, &Upload{ID: "up_full", OrgID: "o", UserID: "u", Key: "p", Total: -1}); err != nil {
		t.Errorf("write after the cap was lifted: %v", err)
	}
}

func TestIsFullOnENOSPC(t *testing.T) {
	t.Parallel()
	enospc := &fs.PathError{Op: "write", Path: "/data/media/x.mp4", Err: syscall.ENOSPC}
	if !IsFull(fmt.Errorf("render: %w", enospc)) {
		t.Error("IsFull(ENOSPC) = false")
	}
	for _, err := range []error{nil, os.ErrPermission, ErrNotFound, &fs.PathError{Op: "open", Path: "x", Err: syscall.EACCES}} {
		if IsFull(err) {
			t.Errorf("IsFull(%v) = true", err)
		}
	}
}

// fillDatabase caps s at the pages it has now, as if the disk were full.
func fillDatabase(t *testing.T, s *Store) {
	t.Helper()
	if err := s.LimitSize(context.Background(), false); err != nil {
		t.Fatal(err)
	}
}
