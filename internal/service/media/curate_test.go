package media

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// speechPart is one stretch of speech in a synthetic analysis.
type speechPart struct{ start, end, db float64 }

// synthetic builds the Analysis that Analyze would report for the given speech layout.
func synthetic(duration float64, parts []speechPart, cuts []float64) *Analysis {
	a := &Analysis{DurationSec: duration, WindowSec: 0.5, SceneCuts: cuts}
	n := int(math.Ceil(duration / a.WindowSec))
	for i := range n {
		c := (float64(i) + 0.5) * a.WindowSec
		db, speech := -80.0, false
		for _, p := range parts {
			if c >= p.start && c < p.end {
				db, speech = p.db, true
			}
		}
		a.LoudnessDB = append(a.LoudnessDB, db)
		a.Speech = append(a.Speech, speech)
		a.CenterX = append(a.CenterX, 0.3)
	}
	prev := 0.0
	for _, p := range parts {
		if p.start-prev >= 0.4 {
			a.Silences = append(a.Silences, Interval{prev, p.start})
		}
		prev = p.end
	}
	if duration-prev >= 0.4 {
		a.Silences = append(a.Silences, Interval{prev, duration})
	}
	return a
}

// talk makes sentences of 3-6 s separated by pauses of 0.8-2 s, deterministically.
func talk(duration float64) []speechPart {
	var parts []speechPart
	t := 0.6
	for k := 0; ; k++ {
		l := 3 + float64(k*7%4)
		if t+l > duration-0.5 {
			return parts
		}
		parts = append(parts, speechPart{t, t + l, -22 - float64(k*5%3)})
		t += l + 0.8 + float64(k*3%5)*0.3
	}
}

// checkHighlights asserts the properties every PickHighlights result must have.
func checkHighlights(t *testing.T, a *Analysis, opts CurateOptions, hs []Highlight, pauseAligned bool) {
	t.Helper()
	if len(hs) == 0 {
		t.Fatal("no highlights")
	}
	rs, re := 0.0, a.DurationSec
	if opts.Range != nil {
		rs, re = opts.Range.Start, math.Min(opts.Range.End, a.DurationSec)
	}
	durations := opts.Durations
	if len(durations) == 0 {
		durations = [][2]float64{{15, 60}}
	}
	for i, h := range hs {
		if h.Start < rs || h.End > re || h.Start >= h.End {
			t.Errorf("clip %d %.2f-%.2f is not inside range %.2f-%.2f", i, h.Start, h.End, rs, re)
		}
		if lengthFit(durations, h.End-h.Start) < 0 || (h.End-h.Start < minUsefulClip && re-rs >= minUsefulClip) {
			t.Errorf("clip %d length %.3f fits none of %v", i, h.End-h.Start, durations)
		}
		if i > 0 && h.Start < hs[i-1].End {
			t.Errorf("clip %d %.2f-%.2f overlaps or precedes clip %d ending %.2f", i, h.Start, h.End, i-1, hs[i-1].End)
		}
		if h.CenterX < 0 || h.CenterX > 1 || math.IsNaN(h.Score) {
			t.Errorf("clip %d: centre %.3f score %v", i, h.CenterX, h.Score)
		}
		if pauseAligned {
			if !(h.Start == 0 || inSilence(a.Silences, h.Start)) {
				t.Errorf("clip %d starts at %.3f, not in a pause %v", i, h.Start, a.Silences)
			}
			if !(h.End == a.DurationSec || inSilence(a.Silences, h.End)) {
				t.Errorf("clip %d ends at %.3f, not in a pause", i, h.End)
			}
		}
	}
}

func TestPickHighlightsProperties(t *testing.T) {
	t.Parallel()
	a := synthetic(600, talk(600), []float64{30, 95.5, 200, 401})
	cases := map[string]CurateOptions{
		"default":        {},
		"range":          {Range: &Interval{100, 400}},
		"range past end": {Range: &Interval{500, 900}},
		"two spans":      {Durations: [][2]float64{{5, 10}, {20, 30}}},
		"short clips":    {Durations: [][2]float64{{0, 8}}},
	}
	for name, opts := range cases {
		t.Run(name, func(t *testing.T) {
			hs, err := PickHighlights(a, opts)
			if err != nil {
				t.Fatal(err)
			}
			checkHighlights(t, a, opts, hs, true)
			rs, re := 0.0, 600.0
			if opts.Range != nil {
				rs, re = opts.Range.Start, math.Min(opts.Range.End, 600)
			}
			if want := int(math.Round((re - rs) / 90)); len(hs) != want {
				t.Errorf("%d clips for a %.0f s range, want %d", len(hs), re-rs, want)
			}
			again, _ := PickHighlights(a, opts)
			if !reflect.DeepEqual(hs, again) {
				t.Error("not deterministic: two calls gave different clips")
			}
		})
	}
}

func TestPickHighlightsCountGrowsWithLength(t *testing.T) {
	t.Parallel()
	a := synthetic(3*3600, talk(3*3600), nil)
	prev := 0
	for _, l := range []float64{40, 120, 300, 900, 1800, 3 * 3600} {
		hs, err := PickHighlights(a, CurateOptions{Range: &Interval{0, l}})
		if err != nil {
			t.Fatal(err)
		}
		checkHighlights(t, a, CurateOptions{Range: &Interval{0, l}}, hs, true)
		if len(hs) < prev {
			t.Errorf("%.0f s range: %d clips, fewer than %d for a shorter range", l, len(hs), prev)
		}
		prev = len(hs)
	}
	if prev != maxClips {
		t.Errorf("3 h range: %d clips, want the cap %d", prev, maxClips)
	}
}

func TestPickHighlightsPrefersLoudSpeechAndCuts(t *testing.T) {
	t.Parallel()
	parts := talk(300)
	for i := range parts {
		if parts[i].start > 150 && parts[i].end < 200 {
			parts[i].db = -12 // the energetic stretch
		}
	}
	a := synthetic(300, parts, nil)
	hs, err := PickHighlights(a, CurateOptions{Durations: [][2]float64{{20, 40}}, Range: &Interval{60, 200}})
	if err != nil {
		t.Fatal(err)
	}
	best := hs[0]
	for _, h := range hs {
		if h.Score > best.Score {
			best = h
		}
	}
	if best.Start < 145 || best.End > 205 {
		t.Errorf("best clip %.1f-%.1f (score %.3f) misses the loud stretch 150-200", best.Start, best.End, best.Score)
	}

	// Two identical halves; only the second has a cut at a clip start.
	flat := synthetic(80, []speechPart{{1, 30, -20}, {41, 70, -20}}, []float64{40.9})
	hs, err = PickHighlights(flat, CurateOptions{Durations: [][2]float64{{25, 35}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 1 || hs[0].Start < 40 {
		t.Errorf("got %v, want the clip opening on the cut at 40.9", hs)
	}
}

func TestPickHighlightsWholeAndShortRanges(t *testing.T) {
	t.Parallel()
	a := synthetic(120, talk(120), nil)
	hs, err := PickHighlights(a, CurateOptions{WholeRange: true, Range: &Interval{10, 100}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 1 || hs[0].Start != 10 || hs[0].End != 100 {
		t.Errorf("WholeRange: got %v, want one clip 10-100", hs)
	}
	hs, err = PickHighlights(a, CurateOptions{WholeRange: true})
	if err != nil || len(hs) != 1 || hs[0].Start != 0 || hs[0].End != 120 {
		t.Errorf("WholeRange without range: got %v, %v; want one clip 0-120", hs, err)
	}
	// Shorter than the smallest allowed length: the whole range, documented.
	hs, err = PickHighlights(a, CurateOptions{Range: &Interval{20, 30}})
	if err != nil || len(hs) != 1 || hs[0].Start != 20 || hs[0].End != 30 {
		t.Errorf("10 s range with 15-60 s clips: got %v, %v; want one clip 20-30", hs, err)
	}
}

func TestPickHighlightsFallsBackToWindows(t *testing.T) {
	t.Parallel()
	// Music under everything: no pause at all.
	a := synthetic(200, []speechPart{{0, 200, -15}}, nil)
	opts := CurateOptions{Durations: [][2]float64{{20, 30}}}
	hs, err := PickHighlights(a, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkHighlights(t, a, opts, hs, false)
	if len(hs) != 2 {
		t.Errorf("got %d clips for 200 s, want 2", len(hs))
	}
	// No audio: one silence over everything, still clips of allowed length.
	quiet := synthetic(100, nil, nil)
	hs, err = PickHighlights(quiet, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkHighlights(t, quiet, opts, hs, false)
}

func TestPickHighlightsRejectsBadInput(t *testing.T) {
	t.Parallel()
	a := synthetic(60, talk(60), nil)
	cases := []struct {
		name string
		a    *Analysis
		opts CurateOptions
		want string
	}{
		{"nil analysis", nil, CurateOptions{}, "analysis is nil"},
		{"range after video", a, CurateOptions{Range: &Interval{60, 90}}, "past the end"},
		{"negative start", a, CurateOptions{Range: &Interval{-1, 10}}, "must be >= 0"},
		{"reversed range", a, CurateOptions{Range: &Interval{30, 10}}, "before end"},
		{"min above max", a, CurateOptions{Durations: [][2]float64{{30, 10}}}, "durations[0]"},
		{"negative min", a, CurateOptions{Durations: [][2]float64{{15, 60}, {-5, 10}}}, "durations[1]"},
		{"bad window", &Analysis{DurationSec: 10}, CurateOptions{}, "windowSec"},
		{"ragged", &Analysis{DurationSec: 10, WindowSec: 1, LoudnessDB: make([]float64, 10)}, CurateOptions{}, "must match"},
	}
	for _, c := range cases {
		_, err := PickHighlights(c.a, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
}

func TestPickHighlightsOnRealAnalysis(t *testing.T) {
	t.Parallel()
	short, shortLayout := sourceVideo(t, 60, 320, 240)
	long, longLayout := sourceVideo(t, 150, 320, 240)
	counts := map[string]int{}
	for _, src := range []struct {
		name   string
		path   string
		pauses []Interval
	}{{"60s", short, intervals(shortLayout.Pauses)}, {"150s", long, intervals(longLayout.Pauses)}} {
		a := analysisOf(t, src.path)
		for _, opts := range []CurateOptions{{}, {Durations: [][2]float64{{5, 12}}}} {
			hs, err := PickHighlights(a, opts)
			if err != nil {
				t.Fatal(err)
			}
			checkHighlights(t, a, opts, hs, true)
			// The boundaries lie in the pauses the generator really put there.
			for _, h := range hs {
				if !(h.Start == 0 || inSilence(src.pauses, h.Start)) || !(h.End == a.DurationSec || inSilence(src.pauses, h.End)) {
					t.Errorf("%s: clip %.2f-%.2f does not start and end in generated pauses", src.name, h.Start, h.End)
				}
			}
			if len(opts.Durations) == 0 {
				counts[src.name] = len(hs)
			}
		}
	}
	if counts["60s"] != 1 || counts["150s"] != 2 {
		t.Errorf("clip counts %v, want 1 for 60 s and 2 for 150 s", counts)
	}
}
