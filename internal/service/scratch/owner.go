package scratch

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Several processes may share one data directory (serve and workers on
// one box). Each keeps its jobs' directories under a directory of its own,
// DATA/tmp/<owner>, and holds an exclusive lock on DATA/tmp/<owner>.lock for
// as long as it runs; the kernel drops the lock when the process dies,
// however it dies. A process that starts sweeps only what no live process
// holds: the directories of owners whose lock it can take, and what a
// release before owners left at the top of DATA/tmp.

// lockSuffix names an owner's lock file beside its directory.
const lockSuffix = ".lock"

// Owned are the job directories of this process: Dirs under its own
// directory, and the lock that says the process lives.
type Owned struct {
	Dirs
	lock *os.File
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
	var b [6]byte
	_, _ = rand.Read(b[:])
	owner := "p-" + hex.EncodeToString(b[:])
	lock, err := lockFile(filepath.Join(root, owner+lockSuffix), true)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, owner)
	if err := os.Mkdir(dir, 0o700); err != nil {
		_ = lock.Close()
		return nil, fmt.Errorf("scratch: %w", err)
	}
	return &Owned{Dirs: New(dir), lock: lock}, nil
}

// Release removes this process's directory, with what its jobs left, and
// its lock; call it once no job runs.
func (o *Owned) Release() error {
	err := os.RemoveAll(o.Root())
	if rerr := os.Remove(o.lock.Name()); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		err = errors.Join(err, rerr)
	}
	return errors.Join(err, o.lock.Close())
}

// sweepDead removes every owner's directory under root whose lock no live
// process holds, and every entry that belongs to no owner.
func sweepDead(root string) error {
	entries, err := os.ReadDir(root)
	if err != nil {
		return fmt.Errorf("scratch: sweep: %w", err)
	}
	var errs []error
	for _, e := range entries {
		name := e.Name()
		owner, isLock := strings.CutSuffix(name, lockSuffix)
		if !isLock {
			if _, err := os.Stat(filepath.Join(root, name+lockSuffix)); err == nil {
				continue // an owner's directory: swept with its lock
			}
			errs = append(errs, os.RemoveAll(filepath.Join(root, name)))
			continue
		}
		lock, err := lockFile(filepath.Join(root, name), false)
		if errors.Is(err, errHeld) {
			continue // its process lives
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, os.RemoveAll(filepath.Join(root, owner)), os.Remove(lock.Name()), lock.Close())
	}
	return errors.Join(errs...)
}
