package media

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// stderrTail keeps the end of a tool's stderr: enough to explain a failure, bounded in memory.
type stderrTail struct {
	mu  sync.Mutex
	buf []byte
}

const stderrKeep = 8 << 10

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*stderrKeep {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-stderrKeep:]...)
	}
	return len(p), nil
}

// lastLines returns the last n non-empty lines, joined with " | " to stay on one log line.
func (t *stderrTail) lastLines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var lines []string
	for _, l := range strings.Split(string(bytes.TrimSpace(t.buf)), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// toolError wraps a failed run with the tool's last stderr lines, or the context's error when
// the run was cancelled (ffmpeg's stderr says nothing useful then).
func toolError(ctx context.Context, what string, err error, tail *stderrTail) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: %w", what, ctxErr)
	}
	if msg := tail.lastLines(6); msg != "" {
		return fmt.Errorf("%s: %w: %s", what, err, msg)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// runTool runs name with args; stdout goes to out (nil discards it).
func runTool(ctx context.Context, what, name string, args []string, out io.Writer) error {
	cmd := toolexec.Command(ctx, name, args...)
	tail := &stderrTail{}
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
