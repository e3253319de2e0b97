package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// privateDirs are the data directory's directories, made or tightened to
// 0700 at start: nobody but clipperd's user reaches anything below them,
// whatever the mode of an older installation's files there.
var privateDirs = []string{".", "media", "uploads", "published", "tmp", "outbox"}

// tightenModes makes the data directory and its directories 0700, and its
// database and key files 0600 (the store and masterkey do so too, for the
// files they make).
func tightenModes(dataDir string) error {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	for _, d := range privateDirs {
		if err := chmodIfThere(filepath.Join(dataDir, d), 0o700); err != nil {
			return err
		}
	}
	db := filepath.Join(dataDir, store.DefaultFile)
	for _, f := range []string{db, db + "-wal", db + "-shm", filepath.Join(dataDir, masterkey.DefaultFile)} {
		if err := chmodIfThere(f, 0o600); err != nil {
			return err
		}
	}
	return nil
}

func chmodIfThere(path string, mode os.FileMode) error {
	if err := os.Chmod(path, mode); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("tighten the mode of %s: %w", path, err)
	}
	return nil
}
