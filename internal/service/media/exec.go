package media

import (
	"context"
	"fmt"
	"io"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// toolError wraps a failed run with the tool's last stderr lines, or the context's error when
// the run was cancelled (ffmpeg's stderr says nothing useful then).
func toolError(ctx context.Context, what string, err error, tail *toolexec.Tail) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: %w", what, ctxErr)
	}
	if msg := tail.LastLines(6); msg != "" {
		return fmt.Errorf("%s: %w: %s", what, err, msg)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// runTool runs name with args; stdout goes to out (nil discards it).
func runTool(ctx context.Context, what, name string, args []string, out io.Writer) error {
	cmd := toolexec.Command(ctx, name, args...)
	tail := &toolexec.Tail{}
	cmd.Stdout = out
	cmd.Stderr = tail
	if err := cmd.Run(); err != nil {
		return toolError(ctx, what, err, tail)
	}
	return nil
}

// ffmpegBase is the start of every ffmpeg command line: quiet except for errors, which end up
// in toolError.
func ffmpegBase() []string {
	return []string{"-nostdin", "-hide_banner", "-loglevel", "error", "-y"}
}
