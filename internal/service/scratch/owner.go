package scratch

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/datalock"
)

// Several processes may share one data directory (serve and workers on
// one box). Each keeps its jobs' directories under a directory of its own,
// DATA/tmp/<owner>, whose lock (datalock, DATA/tmp/<owner>/clipperd.lock)
// it holds for as long as it runs; the kernel drops the lock when the
// process dies, however it dies. A process that starts sweeps only what no
// live process holds: every directory under DATA/tmp whose lock it can
// take, an older release's per-job directories among them.

// Owned are the job directories of this process: Dirs under its own
// directory, and the lock that says the process lives.
type Owned struct {
	Dirs
	lock *datalock.Lock
}

// Claim sweeps what processes that are gone left under root (DATA/tmp),
// then makes this process's directory there and locks it.
func Claim(root string) (*Owned, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("scratch: %w", err)
	}
	if err := sweepDead(root); err != nil {
		return nil, err
	}
	// Another process's sweep may take a new directory's lock between its
	// making and its locking: then this one takes another name.
	var err error
	for range 3 {
		var b [6]byte
		_, _ = rand.Read(b[:])
		dir := filepath.Join(root, "p-"+hex.EncodeToString(b[:]))
		var lock *datalock.Lock
		if lock, err = datalock.Exclusive(dir); err == nil {
			return &Owned{Dirs: New(dir), lock: lock}, nil
		}
	}
	return nil, fmt.Errorf("scratch: %w", err)
}

// Release removes this process's directory, with what its jobs left, and
// lets its lock go; call it once no job runs.
func (o *Owned) Release() error {
	return errors.Join(os.RemoveAll(o.Root()), o.lock.Release())
}

// sweepDead removes every entry under root that no live process holds.
func sweepDead(root string) error {
	entries, err := os.ReadDir(root)
	if err != nil {
		return fmt.Errorf("scratch: sweep: %w", err)
	}
	var errs []error
	for _, e := range entries {
		path := filepath.Join(root, e.Name())
		if !e.IsDir() {
			errs = append(errs, os.Remove(path))
			continue
		}
		lock, err := datalock.Exclusive(path)
		if errors.Is(err, datalock.ErrLocked) {
			continue // its process lives
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, os.RemoveAll(path), lock.Release())
	}
	return errors.Join(errs...)
}
