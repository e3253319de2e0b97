package toolexec

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestMissing: a tool is missing unless an executable of its name is on
// PATH; a file that is not executable does not count.
func TestMissing(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ffmpeg"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ffprobe"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	if got := Missing("ffmpeg", "ffprobe", "yt-dlp"); !slices.Equal(got, []string{"ffprobe", "yt-dlp"}) {
		t.Errorf("Missing = %q, want [ffprobe yt-dlp]", got)
	}
	if got := Missing("ffmpeg"); got != nil {
		t.Errorf("Missing(ffmpeg) = %q, want none", got)
	}
}
