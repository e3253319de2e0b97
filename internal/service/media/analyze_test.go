package media

import (
	"context"
	"errors"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"math"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestAnalyzeMatchesGeneratedLayout(t *testing.T) {
	t.Parallel()
	src, layout := sourceVideo(t, 60, 320, 240)
	a := analysisOf(t, src)

	n := int(math.Ceil(60 / a.WindowSec))
	if a.WindowSec <= 0 || len(a.LoudnessDB) != n || len(a.Speech) != n || len(a.CenterX) != n {
		t.Fatalf("window %.2f: %d loudness, %d speech, %d centres; want %d each",
			a.WindowSec, len(a.LoudnessDB), len(a.Speech), len(a.CenterX), n)
	}

	// Every generated pause is found: a detected silence covers most of it.
	for _, p := range layout.Pauses {
		if p.End-p.Start < 0.6 {
			continue
		}
		covered := 0.0
		for _, s := range a.Silences {
			covered += math.Max(0, math.Min(p.End, s.End)-math.Max(p.Start, s.Start))
		}
		if covered < 0.8*(p.End-p.Start) {
			t.Errorf("pause %.2f-%.2f: only %.2fs detected as silence (silences %v)", p.Start, p.End, covered, a.Silences)
		}
	}
	// Nothing long inside a sentence is called a pause.
	for _, s := range a.Silences {
		for _, sp := range layout.Speech {
			if inside := math.Min(s.End, sp.End) - math.Max(s.Start, sp.Start); inside > 0.6 {
				t.Errorf("silence %.2f-%.2f overlaps speech %.2f-%.2f by %.2fs", s.Start, s.End, sp.Start, sp.End, inside)
			}
		}
	}
	// Speech windows: mostly right, judged at window centres well inside segments or pauses.
	agree, judged := 0, 0
	for i, sp := range a.Speech {
		c := (float64(i) + 0.5) * a.WindowSec
		want, known := truthAt(layout.Speech, c)
		if !known {
			continue
		}
		judged++
		if sp == want {
			agree++
		}
	}
	if judged == 0 || float64(agree) < 0.9*float64(judged) {
		t.Errorf("speech flags agree with the layout in %d of %d windows", agree, judged)
	}
	// Louder in speech than in pauses.
	var speechDB, pauseDB []float64
	for i, l := range a.LoudnessDB {
		if a.Speech[i] {
			speechDB = append(speechDB, l)
		} else {
			pauseDB = append(pauseDB, l)
		}
	}
	if mean(speechDB) < mean(pauseDB)+20 {
		t.Errorf("mean loudness %.1f dB in speech vs %.1f dB in pauses: want a clear gap", mean(speechDB), mean(pauseDB))
	}

	// Scene cuts: each generated cut found within a frame or two, and nothing else.
	cuts := layout.SceneCuts()
	for _, c := range cuts {
		if d := nearest(a.SceneCuts, c); d > 0.1 {
			t.Errorf("cut at %.2f: nearest detected is %.2fs away (detected %v)", c, d, a.SceneCuts)
		}
	}
	if len(a.SceneCuts) != len(cuts) {
		t.Errorf("detected %d cuts %v, generated %d %v", len(a.SceneCuts), a.SceneCuts, len(cuts), cuts)
	}

	// Centre of interest follows the moving box, well inside each scene.
	for _, sc := range layout.Scenes {
		var got []float64
		for i, cx := range a.CenterX {
			if c := (float64(i) + 0.5) * a.WindowSec; c > sc.Start+1.5 && c < sc.End-1.5 {
				got = append(got, cx)
			}
		}
		if len(got) > 0 && math.Abs(mean(got)-sc.CenterX) > 0.05 {
			t.Errorf("scene %.2f-%.2f: mean centre %.3f, box around %.2f", sc.Start, sc.End, mean(got), sc.CenterX)
		}
	}
}

// truthAt says whether time c is speech, and whether it is far enough from a boundary to judge.
func truthAt(speech []testvideo.SpeechSegment, c float64) (bool, bool) {
	const margin = 0.5
	for _, sp := range speech {
		if c > sp.Start-margin && c < sp.End+margin {
			return c > sp.Start+margin && c < sp.End-margin, c > sp.Start+margin && c < sp.End-margin
		}
	}
	return false, true
}

func nearest(list []float64, v float64) float64 {
	best := math.Inf(1)
	for _, x := range list {
		best = math.Min(best, math.Abs(x-v))
	}
	return best
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func TestAnalyzeVideoWithoutAudio(t *testing.T) {
	t.Parallel()
	src, layout := sourceVideo(t, 60, 320, 240)
	silent := filepath.Join(t.TempDir(), "silent.mp4")
	if out, err := exec.Command("ffmpeg", "-v", "error", "-i", src, "-an", "-c:v", "copy", silent).CombinedOutput(); err != nil {
		t.Fatalf("strip audio: %v: %s", err, out)
	}
	a, err := Analyze(context.Background(), silent)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Silences) != 1 || a.Silences[0].Start != 0 || math.Abs(a.Silences[0].End-60) > 0.1 {
		t.Errorf("silences %v, want one over the whole video", a.Silences)
	}
	for i, sp := range a.Speech {
		if sp || a.LoudnessDB[i] != floorDB {
			t.Fatalf("window %d: speech %v at %.1f dB in a video without audio", i, sp, a.LoudnessDB[i])
		}
	}
	if len(a.SceneCuts) != len(layout.SceneCuts()) {
		t.Errorf("%d cuts without audio, want %d", len(a.SceneCuts), len(layout.SceneCuts()))
	}
	opts := CurateOptions{Durations: [][2]float64{{10, 20}}}
	hs, err := PickHighlights(a, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkHighlights(t, a, opts, hs, false)
}

func TestAnalyzeHonoursCancellation(t *testing.T) {
	t.Parallel()
	src, _ := sourceVideo(t, 60, 320, 240)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Analyze(ctx, src); !errors.Is(err, context.Canceled) {
		t.Errorf("Analyze with a cancelled context: %v, want context.Canceled", err)
	}
}
