package media

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

const (
	defaultMinClip = 15.0
	defaultMaxClip = 60.0
	// secondsPerClip: about one clip per this much of the range, between 1 and maxClips.
	secondsPerClip = 90.0
	maxClips       = 30
	// startLead / endTail: how much of the pause a clip keeps before speech resumes and after
	// it stops (at most half the pause), so the first and last syllables are not cut.
	startLead = 0.15
	endTail   = 0.3
	// cutLookahead: a scene cut this soon after a clip's start makes a lively opening.
	cutLookahead = 1.5
	// minUsefulClip: shorter clips are never proposed, even when a span allows them (a span
	// [0, max] would otherwise admit clips of a few frames).
	minUsefulClip = 1.0
	// maxFallbackStarts bounds the work when candidates come from plain window boundaries.
	maxFallbackStarts = 2000
)

// Score weights; a score lies in 0..1.
const (
	weightLoudness = 0.45
	weightSpeech   = 0.35
	weightCut      = 0.12
	weightLength   = 0.08
)

// PickHighlights chooses clips from an analysis. It is pure and deterministic:
//   - every clip lies inside Range (nil = the whole video; an End past the video is clamped
//     to the video's end, a Start at or past it is an error);
//   - every clip's length lies inside one of Durations (default [[15,60]]);
//   - clips start just before speech resumes after a pause and end inside a pause (or at the
//     very start/end of the video); only when no such clip fits are plain window boundaries used;
//   - clips do not overlap; about one per 90 s of range is returned (at least 1, at most 30),
//     fewer when no more fit; they are ordered by start time;
//   - a range shorter than the smallest allowed length yields one clip of the whole range, and
//     WholeRange yields exactly one clip of the whole range.
//
// A clip's score favours loud, energetic windows, a high share of speech, a scene cut right at
// its start and, a little, a length towards the top of its allowed span.
//
// With Words (a transcript), clips follow the sentences instead, unless no run of whole
// sentences has an allowed length (then the rules above apply):
//   - a sentence is a run of words ended by a gap of sentencePause (0.5 s) or more, or by a
//     gap whose middle lies in a detected pause; a clip starts sentenceLead (0.15 s) before
//     its first word and ends sentenceTail (0.2 s) after its last, at most half the gap to
//     the neighbouring word, so no word is cut;
//   - candidates are all runs of whole sentences of an allowed length, scored as above plus
//     keywordWeight (0.2) per spoken word whose stem matches a keyword's, at most
//     maxKeywordBonus (1); when some candidate's first and last sentences each say a
//     keyword, only such candidates are taken;
//   - the best candidates are taken first, skipping overlaps and any that would make the
//     clips cover more than coverageCap (60%) of the range (the best one is always taken),
//     at most 30, ordered by start time.
func PickHighlights(a *Analysis, opts CurateOptions) ([]Highlight, error) {
	if err := validateAnalysis(a); err != nil {
		return nil, err
	}
	durations, err := clipDurations(opts.Durations)
	if err != nil {
		return nil, err
	}
	rs, re, err := clipRange(a, opts.Range)
	if err != nil {
		return nil, err
	}
	sc := newScorer(a, rs, re)
	shortest := durations[0][0]
	for _, d := range durations {
		shortest = min(shortest, d[0])
	}
	if opts.WholeRange || re-rs < shortest || re-rs <= 0 {
		return []Highlight{sc.highlight(rs, re, 0)}, nil
	}
	if len(opts.Words) > 0 {
		if hs := transcriptHighlights(a, opts, rs, re, durations, sc); len(hs) > 0 {
			return hs, nil
		}
	}

	cands := pauseCandidates(a, rs, re, durations, sc)
	if len(cands) == 0 {
		cands = windowCandidates(a, rs, re, durations, sc)
	}
	target := int(math.Round((re - rs) / secondsPerClip))
	target = max(1, min(maxClips, target))

	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].Score != cands[j].Score {
			return cands[i].Score > cands[j].Score
		}
		if cands[i].Start != cands[j].Start {
			return cands[i].Start < cands[j].Start
		}
		return cands[i].End < cands[j].End
	})
	var picked []Highlight
	for _, c := range cands {
		if len(picked) == target {
			break
		}
		if !overlapsAny(picked, c) {
			picked = append(picked, c)
		}
	}
	if len(picked) == 0 {
		// Unreachable while candidates exist; kept as a clear error rather than an empty result.
		return nil, fmt.Errorf("pick highlights: no clip of the allowed lengths fits in range %.2f-%.2f", rs, re)
	}
	slices.SortFunc(picked, func(x, y Highlight) int { return cmpFloat(x.Start, y.Start) })
	return picked, nil
}

func validateAnalysis(a *Analysis) error {
	switch {
	case a == nil:
		return errors.New("pick highlights: analysis is nil")
	case !(a.DurationSec > 0) || math.IsInf(a.DurationSec, 0):
		return fmt.Errorf("pick highlights: analysis durationSec must be a positive number, got %v", a.DurationSec)
	case !(a.WindowSec > 0) || math.IsInf(a.WindowSec, 0):
		return fmt.Errorf("pick highlights: analysis windowSec must be a positive number, got %v", a.WindowSec)
	case len(a.Speech) != len(a.LoudnessDB):
		return fmt.Errorf("pick highlights: analysis has %d speech flags but %d loudness values; they must match", len(a.Speech), len(a.LoudnessDB))
	case len(a.CenterX) != 0 && len(a.CenterX) != len(a.LoudnessDB):
		return fmt.Errorf("pick highlights: analysis has %d centres but %d windows; they must match (or be empty)", len(a.CenterX), len(a.LoudnessDB))
	}
	for i, s := range a.Silences {
		if !(s.Start <= s.End) || (i > 0 && s.Start < a.Silences[i-1].Start) {
			return fmt.Errorf("pick highlights: analysis silences[%d] (%v-%v) must have start <= end and be sorted by start", i, s.Start, s.End)
		}
	}
	return nil
}

// clipDurations checks the allowed lengths; empty means [[15,60]].
func clipDurations(in [][2]float64) ([][2]float64, error) {
	if len(in) == 0 {
		return [][2]float64{{defaultMinClip, defaultMaxClip}}, nil
	}
	for i, d := range in {
		if math.IsNaN(d[0]) || math.IsNaN(d[1]) || math.IsInf(d[1], 0) || d[0] < 0 || d[0] >= d[1] {
			return nil, fmt.Errorf("pick highlights: durations[%d] = [%v, %v]: want 0 <= min < max seconds", i, d[0], d[1])
		}
	}
	return in, nil
}

// clipRange resolves the requested range against the video.
func clipRange(a *Analysis, r *Interval) (float64, float64, error) {
	if r == nil {
		return 0, a.DurationSec, nil
	}
	switch {
	case math.IsNaN(r.Start) || math.IsNaN(r.End) || math.IsInf(r.Start, 0) || math.IsInf(r.End, 0):
		return 0, 0, errors.New("pick highlights: range start and end must be finite numbers")
	case r.Start < 0:
		return 0, 0, fmt.Errorf("pick highlights: range start %.3f must be >= 0", r.Start)
	case r.Start >= r.End:
		return 0, 0, fmt.Errorf("pick highlights: range start %.3f must be before end %.3f", r.Start, r.End)
	case r.Start >= a.DurationSec:
		return 0, 0, fmt.Errorf("pick highlights: range start %.3f is at or past the end of the %.3f s video", r.Start, a.DurationSec)
	}
	return r.Start, min(r.End, a.DurationSec), nil
}

// pauseCandidates pairs every start just before speech resumes with every end inside a later
// pause, keeping the pairs whose length is allowed.
func pauseCandidates(a *Analysis, rs, re float64, durations [][2]float64, sc *scorer) []Highlight {
	const eps = 1e-9
	var starts, ends []float64
	if rs < eps && !inSilence(a.Silences, rs) {
		starts = append(starts, rs) // speech from the first frame: the video's start is a boundary
	}
	if re > a.DurationSec-eps && !inSilence(a.Silences, re) {
		ends = append(ends, re)
	}
	for _, s := range a.Silences {
		half := (s.End - s.Start) / 2
		if st := max(rs, s.End-min(startLead, half)); s.End > rs && s.End < re && st < re {
			starts = append(starts, st)
		}
		if en := min(re, s.Start+min(endTail, half)); s.Start > rs && s.Start < re && en > rs {
			ends = append(ends, en)
		}
	}
	slices.Sort(starts)
	slices.Sort(ends)
	starts, ends = slices.Compact(starts), slices.Compact(ends)
	lo, hi := lengthBounds(durations)
	lo = max(lo, minUsefulClip)
	var out []Highlight
	for _, st := range starts {
		j := sort.SearchFloat64s(ends, st+lo-eps)
		for ; j < len(ends) && ends[j]-st <= hi+eps; j++ {
			if fit := lengthFit(durations, ends[j]-st); fit >= 0 {
				out = append(out, sc.highlight(st, ends[j], fit))
			}
		}
	}
	return out
}

// windowCandidates is the fallback when no pause-aligned clip fits (music, constant noise, no
// audio): starts on a regular grid of windows, a few allowed lengths each.
func windowCandidates(a *Analysis, rs, re float64, durations [][2]float64, sc *scorer) []Highlight {
	step := max(a.WindowSec, (re-rs)/maxFallbackStarts)
	var out []Highlight
	for k := 0; ; k++ {
		st := rs + float64(k)*step
		if st >= re {
			break
		}
		for _, d := range durations {
			top := min(d[1], re-st)
			if top < d[0] || top <= 0 {
				continue
			}
			lo := max(d[0], min(top, minUsefulClip))
			for _, l := range []float64{lo, (lo + top) / 2, top} {
				if fit := lengthFit(durations, l); fit >= 0 {
					out = append(out, sc.highlight(st, st+l, fit))
				}
			}
		}
	}
	return out
}

func lengthBounds(durations [][2]float64) (float64, float64) {
	lo, hi := math.Inf(1), 0.0
	for _, d := range durations {
		lo, hi = min(lo, d[0]), max(hi, d[1])
	}
	return lo, hi
}

// lengthFit returns how far toward the top of its allowed span a length sits (0..1, best
// over the spans that admit it), or -1 when no span admits it.
func lengthFit(durations [][2]float64, l float64) float64 {
	best := -1.0
	for _, d := range durations {
		if l >= d[0] && l <= d[1] {
			best = max(best, (l-d[0])/(d[1]-d[0]))
		}
	}
	return best
}

func inSilence(silences []Interval, t float64) bool {
	for _, s := range silences {
		if t >= s.Start && t <= s.End {
			return true
		}
	}
	return false
}

func overlapsAny(list []Highlight, h Highlight) bool {
	for _, x := range list {
		if h.Start < x.End && x.Start < h.End {
			return true
		}
	}
	return false
}

func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
