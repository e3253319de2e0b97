// Package datalock marks a data directory in use: every clipperd process
// that serves from it holds a shared lock on DATA/clipperd.lock for its
// life (several may, as before), and `clipperd migrate` takes it
// exclusively, so it refuses a directory a running clipperd still writes,
// and no clipperd starts on one while it is being copied. The lock is the
// operating system's (flock): a process that dies, even by kill -9,
// releases it.
package datalock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// File is the lock's name in the data directory.
const File = "clipperd.lock"

// ErrLocked: another process holds the lock in a way that excludes this one.
var ErrLocked = errors.New("the data directory is in use")

// Lock is a held lock; Release lets it go.
type Lock struct{ f *os.File }

// Shared takes the lock of dir as one of its servers, creating dir if
// needed; ErrLocked while a migration holds it.
func Shared(dir string) (*Lock, error) { return take(dir, false) }

// Exclusive takes the lock of dir alone; ErrLocked while any process
// serves from it.
func Exclusive(dir string) (*Lock, error) { return take(dir, true) }

func take(dir string, exclusive bool) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	path := filepath.Join(dir, File)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := flock(f, exclusive); err != nil {
		_ = f.Close()
		if errors.Is(err, ErrLocked) {
			return nil, fmt.Errorf("%w (%s is locked)", ErrLocked, path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{f}, nil
}

// Release lets the lock go; nil does nothing.
func (l *Lock) Release() error {
	if l == nil {
		return nil
	}
	return l.f.Close() // closing the file ends its flock
}
