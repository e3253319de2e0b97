//go:build !unix

package scratch

import (
	"errors"
	"fmt"
	"os"
)

// errHeld is a lock another live process holds.
var errHeld = errors.New("scratch: held by a live process")

// lockFile opens path (creating it when create). Without flock every other
// owner counts as alive: a sweep removes only what no owner claims.
func lockFile(path string, create bool) (*os.File, error) {
	if !create {
		return nil, errHeld
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("scratch: lock: %w", err)
	}
	return f, nil
}
