package media

import (
	"math"
	"slices"
	"sort"
)

// loudnessSpan: windows this far below the range's loud level count as silent (0); the loud
// level itself (90th percentile) counts as 1.
const loudnessSpan = 30.0

// scorer answers per-clip means in constant time from prefix sums over the windows.
type scorer struct {
	a                    *Analysis
	loud, speech, centre []float64 // prefix sums, len = windows+1
	cuts                 []float64
}

func newScorer(a *Analysis, rs, re float64) *scorer {
	n := len(a.LoudnessDB)
	s := &scorer{a: a, loud: make([]float64, n+1), speech: make([]float64, n+1), centre: make([]float64, n+1)}
	s.cuts = slices.Clone(a.SceneCuts)
	slices.Sort(s.cuts)

	// The loud level is relative to the range, so quiet recordings still rank their own peaks.
	i0, i1 := s.windows(rs, re)
	var inRange []float64
	for i := i0; i < i1; i++ {
		if v := a.LoudnessDB[i]; !math.IsNaN(v) {
			inRange = append(inRange, v)
		}
	}
	ref := 0.0
	if len(inRange) > 0 {
		slices.Sort(inRange)
		ref = inRange[int(0.9*float64(len(inRange)-1))]
	}
	for i := range n {
		l := a.LoudnessDB[i]
		norm := 0.0
		if !math.IsNaN(l) {
			norm = min(1, max(0, (l-(ref-loudnessSpan))/loudnessSpan))
		}
		sp := 0.0
		if a.Speech[i] {
			sp = 1
		}
		cx := 0.5
		if i < len(a.CenterX) && a.CenterX[i] >= 0 && a.CenterX[i] <= 1 {
			cx = a.CenterX[i]
		}
		s.loud[i+1] = s.loud[i] + norm
		s.speech[i+1] = s.speech[i] + sp
		s.centre[i+1] = s.centre[i] + cx
	}
	return s
}

// windows maps a time span to the windows it touches, [i0, i1).
func (s *scorer) windows(start, end float64) (int, int) {
	n := len(s.a.LoudnessDB)
	i0 := min(n, max(0, int(math.Floor(start/s.a.WindowSec))))
	i1 := min(n, max(i0, int(math.Ceil(end/s.a.WindowSec))))
	return i0, i1
}

func (s *scorer) highlight(start, end, lengthFit float64) Highlight {
	h := Highlight{Start: start, End: end, CenterX: 0.5}
	i0, i1 := s.windows(start, end)
	if i1 > i0 {
		cnt := float64(i1 - i0)
		h.CenterX = (s.centre[i1] - s.centre[i0]) / cnt
		h.Score = weightLoudness*(s.loud[i1]-s.loud[i0])/cnt + weightSpeech*(s.speech[i1]-s.speech[i0])/cnt
	}
	// A cut just before speech resumes counts too: the clip starts a little into the pause.
	if k := sort.SearchFloat64s(s.cuts, start-startLead); k < len(s.cuts) && s.cuts[k] <= start+cutLookahead {
		h.Score += weightCut
	}
	h.Score += weightLength * max(0, lengthFit)
	return h
}
