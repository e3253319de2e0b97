package media

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// script lays sentences out as words of 0.3 s with 0.1 s between them and pause seconds
// between sentences, from 0.6 s; it returns the words, where each sentence is spoken, and the
// analysis of that audio.
func script(sents []string, pause float64) ([]Word, []Interval, *Analysis) {
	var words []Word
	var spans []Interval
	var parts []speechPart
	t := 0.6
	for k, s := range sents {
		st := t
		for _, w := range strings.Fields(s) {
			words = append(words, Word{Text: w, Start: t, End: t + 0.3})
			t += 0.4
		}
		spans = append(spans, Interval{st, t - 0.1})
		parts = append(parts, speechPart{st, t - 0.1, -20 - float64(k%3)})
		t += pause - 0.1
	}
	return words, spans, synthetic(t+0.5, parts, nil)
}

// filler makes n sentences of about 4 s about a subject.
func filler(n int, subject string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "here we talk about the " + subject + " and what it means for us today"
	}
	return out
}

// nearEdge reports how far t is from the nearest sentence start (start) or end.
func nearEdge(t float64, spans []Interval, start bool) float64 {
	best := math.Inf(1)
	for _, s := range spans {
		e := s.End
		if start {
			e = s.Start
		}
		best = min(best, math.Abs(t-e))
	}
	return best
}

func checkSentenceClips(t *testing.T, hs []Highlight, words []Word, spans []Interval, opts CurateOptions, rangeLen float64) {
	t.Helper()
	covered := 0.0
	for i, h := range hs {
		if d := nearEdge(h.Start, spans, true); d > 0.3 {
			t.Errorf("clip %d starts %.2f s from a sentence start", i, d)
		}
		if d := nearEdge(h.End, spans, false); d > 0.3 {
			t.Errorf("clip %d ends %.2f s from a sentence end", i, d)
		}
		for _, w := range words {
			if (h.Start > w.Start && h.Start < w.End) || (h.End > w.Start && h.End < w.End) {
				t.Errorf("clip %d %.2f-%.2f cuts the word %q %.2f-%.2f", i, h.Start, h.End, w.Text, w.Start, w.End)
			}
		}
		if lengthFit(opts.Durations, h.End-h.Start) < 0 {
			t.Errorf("clip %d is %.2f s long, outside %v", i, h.End-h.Start, opts.Durations)
		}
		if i > 0 && h.Start < hs[i-1].End {
			t.Errorf("clip %d overlaps clip %d", i, i-1)
		}
		covered += h.End - h.Start
	}
	if len(hs) > 1 && covered > coverageCap*rangeLen+1e-9 {
		t.Errorf("clips cover %.1f s of %.1f s, over the %.0f%% cap", covered, rangeLen, coverageCap*100)
	}
}

func TestSentenceCurationFollowsTheContent(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		sents     int
		durations [][2]float64
		minClips  int
	}{
		{"90 s of speech, 10-30 s clips", 18, [][2]float64{{10, 30}}, 2},
		{"3 min, 10-30 s clips", 36, [][2]float64{{10, 30}}, 4},
		{"3 min, 15-60 s clips", 36, nil, 2},
		{"3 min, two spans", 36, [][2]float64{{5, 10}, {20, 30}}, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			words, spans, a := script(filler(c.sents, "weather"), 1)
			opts := CurateOptions{Durations: c.durations, Words: words}
			hs, err := PickHighlights(a, opts)
			if err != nil {
				t.Fatal(err)
			}
			if opts.Durations == nil {
				opts.Durations = [][2]float64{{15, 60}}
			}
			checkSentenceClips(t, hs, words, spans, opts, a.DurationSec)
			if len(hs) < c.minClips {
				t.Errorf("%d clips from %.0f s, want at least %d", len(hs), a.DurationSec, c.minClips)
			}
			t.Logf("%d clips from %.0f s: %v", len(hs), a.DurationSec, hs)
		})
	}
}

func TestSentenceCurationPrefersKeywords(t *testing.T) {
	t.Parallel()
	first := filler(9, "garden soil")
	second := filler(9, "rocket engine")
	words, spans, a := script(append(first, second...), 1)
	half := spans[9].Start // the start of the first sentence of the second part
	for name, kw := range map[string][]string{
		"topicKeywords":   {"Rockets"},
		"prompt words":    {"engines"},
		"first subject":   {"gardening"},
		"multi-word term": {"soil science"},
	} {
		t.Run(name, func(t *testing.T) {
			hs, err := PickHighlights(a, CurateOptions{Durations: [][2]float64{{10, 30}}, Words: words, Keywords: kw})
			if err != nil {
				t.Fatal(err)
			}
			checkSentenceClips(t, hs, words, spans, CurateOptions{Durations: [][2]float64{{10, 30}}}, a.DurationSec)
			inFirst := name == "first subject" || name == "multi-word term"
			for _, h := range hs {
				if inFirst && h.End > half || !inFirst && h.Start < half-0.3 {
					t.Errorf("clip %.1f-%.1f is not in the part about %v (the parts meet at %.1f)", h.Start, h.End, kw, half)
				}
			}
		})
	}
}

func TestSentenceCurationFallsBack(t *testing.T) {
	t.Parallel()
	// One 36 s sentence: no run of sentences fits 10-30 s, so the audio decides as without words.
	words, _, a := script([]string{strings.Repeat("word ", 90)}, 1)
	opts := CurateOptions{Durations: [][2]float64{{10, 30}}}
	want, err := PickHighlights(a, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Words = words
	got, err := PickHighlights(a, opts)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("with words got %v, %v; want the audio's %v", got, err, want)
	}
}

func TestSentences(t *testing.T) {
	t.Parallel()
	w := func(s, e float64) Word { return Word{Text: "rockets", Start: s, End: e} }
	cases := []struct {
		name     string
		words    []Word
		silences []Interval
		want     []sentence
	}{
		{"one sentence", []Word{w(1, 1.3), w(1.4, 1.7)}, nil, []sentence{{0.85, 1.9, 2}}},
		{"a long gap splits", []Word{w(1, 1.3), w(1.8, 2.1)}, nil, []sentence{{0.85, 1.5, 1}, {1.65, 2.3, 1}}},
		{"a detected pause splits a short gap", []Word{w(1, 1.3), w(1.6, 1.9)}, []Interval{{1.35, 1.55}},
			[]sentence{{0.85, 1.45, 1}, {1.45, 2.1, 1}}},
		{"pads stay in the range", []Word{w(0.05, 0.3), w(0.4, 2.95)}, nil, []sentence{{0, 3, 2}}},
		{"words outside the range are left out", []Word{w(-1, -0.5), w(1, 1.3), w(2.9, 3.2)}, nil, []sentence{{0.85, 1.5, 1}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := sentences(c.words, c.silences, 0, 3, map[string]bool{"rocket": true})
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if math.Abs(got[i].start-c.want[i].start) > 1e-9 || math.Abs(got[i].end-c.want[i].end) > 1e-9 || got[i].hits != c.want[i].hits {
					t.Errorf("sentence %d: got %v, want %v", i, got[i], c.want[i])
				}
			}
		})
	}
}

func TestStemAndTerms(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Rockets": "rocket", "rocket,": "rocket", "cooking": "cook", "cooked": "cook", "parties": "party",
		"party": "party", "pages": "pag", "page": "pag", "uses": "use", "use": "use", "is": "is",
	} {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
	got := keywordTerms([]string{"Machine learning", "AI", "of rockets!"})
	want := map[string]bool{"machin": true, "learn": true, "rocket": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("keywordTerms = %v, want %v", got, want)
	}
}

func TestPickSentencesCoverageCap(t *testing.T) {
	t.Parallel()
	c := func(s, e, score float64, onTopic bool) candidate {
		return candidate{Highlight{Start: s, End: e, Score: score, CenterX: 0.5}, onTopic}
	}
	cands := []candidate{c(0, 20, 0.9, false), c(20, 40, 0.8, false), c(40, 60, 0.7, false), c(60, 70, 0.6, true), c(5, 15, 0.95, false)}
	cases := []struct {
		name     string
		keywords bool
		rangeLen float64
		want     []float64 // starts, best first
	}{
		{"cap 60% of 100 s", false, 100, []float64{5, 20, 40, 60}},
		{"cap 60% of 50 s", false, 50, []float64{5, 20}},
		{"the best is kept past the cap", false, 10, []float64{5}},
		{"keywords keep only the clips on topic", true, 100, []float64{60}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hs := pickSentences(append([]candidate(nil), cands...), tc.keywords, tc.rangeLen)
			var starts []float64
			for _, h := range hs {
				starts = append(starts, h.Start)
			}
			if !reflect.DeepEqual(starts, tc.want) {
				t.Errorf("picked starts %v, want %v", starts, tc.want)
			}
		})
	}
}
