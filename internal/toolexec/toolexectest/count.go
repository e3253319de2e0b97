// Package toolexectest helps tests observe the external tools that code
// under test starts.
package toolexectest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// CountRuns puts a wrapper named tool first in PATH that logs each run and
// then runs the real tool; the returned func tells how many ran so far. A
// missing tool skips the test, or fails it in CI (RequireTools).
func CountRuns(t *testing.T, tool string) func() int {
	t.Helper()
	RequireTools(t, tool)
	real, err := exec.LookPath(tool)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "runs.log")
	script := "#!/bin/sh\necho run >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, tool), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() int {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "run\n")
	}
}
