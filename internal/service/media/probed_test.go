package media

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// A caller that probed the source passes the result on: analysing and
// rendering many clips probe nothing but each export, once.
func TestProbedSourceIsNotProbedAgain(t *testing.T) {
	src, _ := sourceVideo(t, 60, 320, 240)
	ctx := context.Background()
	pr, err := Probe(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	probes := toolexectest.CountRuns(t, "ffprobe")

	a, err := AnalyzeProbed(ctx, src, pr, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if n := probes(); n != 0 {
		t.Errorf("AnalyzeProbed ran ffprobe %d times, want 0", n)
	}
	if a.DurationSec != pr.DurationSec || len(a.LoudnessDB) == 0 {
		t.Errorf("analysis of %.2f s with %d windows, want the probed %.2f s", a.DurationSec, len(a.LoudnessDB), pr.DurationSec)
	}

	dir := t.TempDir()
	opts := RenderOptions{Aspect: "square", PreviewHeight: 120, Source: pr}
	for i, h := range []Highlight{{Start: 2, End: 4, CenterX: 0.5}, {Start: 10, End: 12.5, CenterX: 0.3}} {
		exp, pre := filepath.Join(dir, "c"+string(rune('0'+i))+".mp4"), filepath.Join(dir, "c"+string(rune('0'+i))+".preview.mp4")
		res, err := renderFast(ctx, src, h, exp, pre, opts)
		if err != nil {
			t.Fatal(err)
		}
		if want := h.End - h.Start; res.DurationSec < want-0.1 || res.DurationSec > want+0.1 {
			t.Errorf("clip %d: duration %.3f, want %.1f", i, res.DurationSec, want)
		}
	}
	if n := probes(); n != 2 {
		t.Errorf("rendering 2 clips ran ffprobe %d times, want 2 (one per export, none of the source)", n)
	}

	// A result that cannot be Probe's is refused rather than trusted.
	_, err = renderFast(ctx, src, Highlight{Start: 1, End: 2}, filepath.Join(dir, "x.mp4"), filepath.Join(dir, "x.p.mp4"),
		RenderOptions{Source: &ProbeResult{DurationSec: 60}})
	if err == nil || !strings.Contains(err.Error(), "probe result") {
		t.Errorf("render with an empty probe result: %v, want it refused", err)
	}
}
