package media

import (
	"context"
	"os/exec"
)

// Command is exec.CommandContext for every tool clipperd runs (ffmpeg,
// ffprobe, yt-dlp): the child is also bound to clipperd's life, so a
// clipperd killed with SIGKILL, which cannot cancel ctx, leaves no encoder
// running on (see bindToParent).
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	bindToParent(cmd)
	return cmd
}
