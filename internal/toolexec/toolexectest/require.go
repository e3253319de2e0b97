package toolexectest

import (
	"os"
	"os/exec"
	"testing"
)

// MediaTools are the programs a test that generates or processes video needs.
var MediaTools = []string{"ffmpeg", "ffprobe", "espeak-ng"}

// InCI reports whether the tests run in CI (the CI variable is set), where a
// missing tool is an installation fault, not a reason to skip.
func InCI() bool { return os.Getenv("CI") != "" }

// RequireTools skips tb when one of tools is not on PATH, or fails it in CI,
// so a green CI run always means the tests that need the tools ran.
func RequireTools(tb testing.TB, tools ...string) {
	tb.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if InCI() {
				tb.Fatalf("%s is not installed, and CI runs every test that needs it (scripts/ensure-tools.sh installs it): %v", tool, err)
			}
			tb.Skipf("%s is not installed: %v", tool, err)
		}
	}
}

// RequireMedia is RequireTools for MediaTools.
func RequireMedia(tb testing.TB) {
	tb.Helper()
	RequireTools(tb, MediaTools...)
}
