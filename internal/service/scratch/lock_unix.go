//go:build unix

package scratch

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// errHeld is a lock another live process holds.
var errHeld = errors.New("scratch: held by a live process")

// lockFile opens path (creating it when create) and takes an exclusive
// lock on it without waiting: errHeld when another process holds it.
func lockFile(path string, create bool) (*os.File, error) {
	flag := os.O_RDWR
	if create {
		flag |= os.O_CREATE | os.O_EXCL
	}
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		return nil, fmt.Errorf("scratch: lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errHeld
		}
		return nil, fmt.Errorf("scratch: lock %s: %w", path, err)
	}
	return f, nil
}
