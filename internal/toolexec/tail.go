package toolexec

import (
	"bytes"
	"strings"
	"sync"
)

// tailKeep is how much of a tool's output a Tail holds: enough to explain a
// failure, bounded however long the tool runs.
const tailKeep = 8 << 10

// Tail is an io.Writer that keeps the end of what a tool wrote (its stderr,
// usually), for error messages. Safe for concurrent writes.
type Tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*tailKeep {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailKeep:]...)
	}
	return len(p), nil
}

// String returns what is kept, trimmed.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.buf))
}

// LastLines returns the last n non-empty lines, joined with " | " to stay on
// one log line.
func (t *Tail) LastLines(n int) string {
	var lines []string
	for _, l := range strings.Split(t.String(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
