// Package scratch gives each job a temporary directory of its own,
// DATA/tmp/<id>: ffmpeg's intermediates, the speech recogniser's files,
// downloads before they become objects. A job's directory is removed when
// the job ends; what a crash left is swept when clipperd starts, before any
// job runs. Inside the data directory, a finished file becomes a media
// object by a rename (blob.PutFile), not a copy.
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

// Sweep removes every job's directory: at start, when no job runs, what
// is there was left by a process that stopped without ending its jobs.
func (d Dirs) Sweep() error {
	entries, err := os.ReadDir(d.root)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("scratch: sweep: %w", err)
	}
	var errs []error
	for _, e := range entries {
		errs = append(errs, os.RemoveAll(filepath.Join(d.root, e.Name())))
	}
	return errors.Join(errs...)
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
