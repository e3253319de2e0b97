package media

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
)

// Generated sources are shared by the tests of this package: generating is the slow part.
var (
	fixtureDir  string
	fixtureMu   sync.Mutex
	fixtureDone = map[string]*fixture{}
)

type fixture struct {
	path   string
	layout *testvideo.Layout
	err    error
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "media-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fixtureDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func requireFFmpeg(tb testing.TB) {
	tb.Helper()
	for _, tool := range []string{"ffmpeg", "ffprobe", "espeak-ng"} {
		if _, err := exec.LookPath(tool); err != nil {
			tb.Skipf("%s is not installed: %v", tool, err)
		}
	}
}

// sourceVideo generates (once per test binary) a video of the given length and size.
func sourceVideo(tb testing.TB, seconds, w, h int) (string, *testvideo.Layout) {
	tb.Helper()
	requireFFmpeg(tb)
	name := fmt.Sprintf("src-%ds-%dx%d.mp4", seconds, w, h)
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	f, ok := fixtureDone[name]
	if !ok {
		f = &fixture{path: filepath.Join(fixtureDir, name)}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		f.layout, f.err = testvideo.GenerateWithLayout(ctx, f.path, testvideo.Options{
			Duration: time.Duration(seconds) * time.Second, Width: w, Height: h,
		})
		cancel()
		fixtureDone[name] = f
	}
	if f.err != nil {
		tb.Fatalf("generate %s: %v", name, f.err)
	}
	return f.path, f.layout
}

// analysisOf analyses a generated source once and shares the result.
var (
	analysisMu   sync.Mutex
	analysisDone = map[string]*Analysis{}
)

func analysisOf(tb testing.TB, path string) *Analysis {
	tb.Helper()
	analysisMu.Lock()
	defer analysisMu.Unlock()
	if a, ok := analysisDone[path]; ok {
		return a
	}
	a, err := Analyze(context.Background(), path)
	if err != nil {
		tb.Fatalf("Analyze(%s): %v", filepath.Base(path), err)
	}
	analysisDone[path] = a
	return a
}

func intervals(spans []testvideo.Span) []Interval {
	out := make([]Interval, len(spans))
	for i, s := range spans {
		out[i] = Interval{s.Start, s.End}
	}
	return out
}

func mkdir(dir string) error { return os.MkdirAll(dir, 0o755) }
