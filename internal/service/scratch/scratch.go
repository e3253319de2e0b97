// Package scratch gives each job a temporary directory of its own,
// DATA/tmp/<owner>/<id>: ffmpeg's intermediates, the speech recogniser's
// files, downloads before they become objects. A job's directory is removed
// when the job ends; what a process that is gone left is swept when a
// process starts (Claim, owner.go), before any of its jobs runs. Inside the
// data directory, a finished file becomes a media object by a rename
// (blob.PutFile), not a copy.
package scratch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Dirs are the job directories under one root.
type Dirs struct{ root string }

// New returns the job directories under root (DATA/tmp).
func New(root string) Dirs { return Dirs{root: root} }

// Root is the directory the job directories are in; "" for the zero Dirs.
func (d Dirs) Root() string { return d.root }

// Make returns the empty directory of job id; leftovers of an earlier run
// of the same job are removed first.
func (d Dirs) Make(id string) (string, error) {
	dir, err := d.dir(id)
	if err != nil {
		return "", err
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("scratch: clear %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("scratch: %w", err)
	}
	return dir, nil
}

// Remove deletes the directory of job id with what it holds.
func (d Dirs) Remove(id string) error {
	dir, err := d.dir(id)
	if err != nil {
		return err
	}
	return os.RemoveAll(dir)
}

// dir is the directory of id, which must be one plain name.
func (d Dirs) dir(id string) (string, error) {
	if d.root == "" {
		return "", errors.New("scratch: no root directory")
	}
	if id == "" || strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return "", fmt.Errorf("scratch: job id %q is not a plain name", id)
	}
	return filepath.Join(d.root, id), nil
}
