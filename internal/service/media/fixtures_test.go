package media

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo/videotest"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

func TestMain(m *testing.M) { videotest.Main(m) }

func requireFFmpeg(tb testing.TB) {
	tb.Helper()
	toolexectest.RequireMedia(tb)
}

// sourceVideo is the shared generated video of the given length and size.
func sourceVideo(tb testing.TB, seconds, w, h int) (string, *testvideo.Layout) {
	tb.Helper()
	return videotest.Shared(tb, testvideo.Options{Duration: time.Duration(seconds) * time.Second, Width: w, Height: h})
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

// renderFast is RenderClip with x264's fastest preset unless opts names
// one: these tests look at the picture and the sound, which the preset
// leaves alone, and it spends a third of the default's CPU.
// TestRenderClipAspects and TestRenderClipEncodePreset render with the
// default.
func renderFast(ctx context.Context, src string, h Highlight, exportPath, previewPath string, opts RenderOptions) (*RenderResult, error) {
	if opts.EncodePreset == "" {
		opts.EncodePreset = "ultrafast"
	}
	return RenderClip(ctx, src, h, exportPath, previewPath, opts)
}
