// Package toolexec starts the external tools clipperd and its test videos
// use (ffmpeg, ffprobe, espeak-ng, festival, yt-dlp) as children bound to the parent's
// life, and quotes values for ffmpeg's command line.
package toolexec

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
)

// Command is exec.CommandContext for every tool clipperd runs (ffmpeg,
// ffprobe, yt-dlp, fc-match, espeak-ng, festival): the child is also bound to clipperd's life, so a
// clipperd killed with SIGKILL, which cannot cancel ctx, leaves no encoder
// running on (see bindToParent).
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	bindToParent(cmd)
	return cmd
}

// FilterValue escapes v for use as an option value inside an ffmpeg filtergraph string: first
// the option level (quote it, escaping quotes), then the graph level (backslash the characters
// the graph parser splits on).
func FilterValue(v string) string {
	level1 := "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
	var b strings.Builder
	for _, r := range level1 {
		if strings.ContainsRune(`\'[],;`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// LocalURL names a local file for ffmpeg/ffprobe so that nothing in it (a "name:" prefix)
// is taken for a protocol.
func LocalURL(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return "file:" + p
}
