package media

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

const (
	// cutFadeSec is the audio fade out and in at each joint of a cut clip, so no click is heard.
	cutFadeSec = 0.015
	// minKeepSec: a kept piece shorter than this between two cuts is cut too (a frame or two
	// of picture between fillers is a flash, not content).
	minKeepSec = 0.1
)

// KeptRanges is what remains of span once cuts are taken out: the pieces of span outside
// every cut, in order, each at least minKeepSec long. Cuts may overlap, be unsorted or reach
// outside span. No cut inside span gives span itself.
func KeptRanges(span Interval, cuts []Interval) []Interval {
	cs := append([]Interval(nil), cuts...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].Start < cs[j].Start })
	var kept []Interval
	at := span.Start
	for _, c := range cs {
		if c.End <= at || c.Start >= span.End || c.End <= c.Start {
			continue
		}
		if c.Start-at >= minKeepSec {
			kept = append(kept, Interval{at, c.Start})
		}
		at = math.Max(at, c.End)
	}
	if span.End-at >= minKeepSec {
		kept = append(kept, Interval{at, span.End})
	}
	return kept
}

// Length is the summed length of ranges.
func Length(ranges []Interval) float64 {
	var d float64
	for _, r := range ranges {
		d += r.End - r.Start
	}
	return d
}

// frameSnapped is each kept piece moved onto the source's frames (at k/fps): from its
// first frame to just after its last, so its length is the whole frames that trim and
// concat play. The render cuts (cutGraph) and lays out (layoutSegments) these same
// pieces, so the layout's clip times stay on the played frames however many pieces
// come before. fps <= 0 (unknown) leaves them as they are; a piece holding no frame is
// dropped.
func frameSnapped(keep []Interval, fps float64) []Interval {
	if fps <= 0 {
		return keep
	}
	snap := func(t float64) float64 { return math.Ceil(t*fps-1e-6) / fps }
	out := make([]Interval, 0, len(keep))
	for _, k := range keep {
		if s, e := snap(k.Start), snap(k.End); e > s {
			out = append(out, Interval{s, e})
		}
	}
	if len(out) == 0 {
		return keep
	}
	return out
}

// cutGraph joins the kept pieces (source seconds, frameSnapped) of the input, which starts
// at start: trim/atrim each piece, fade its audio in and out, and concat them. It returns
// the graph, ending in [cv] and, with audio, [ae] and [ap] (the audio for the export and
// the preview).
func cutGraph(info *ProbeResult, start float64, keep []Interval) string {
	// The picture is trimmed half a frame before each piece's bounds, which are on frames:
	// a frame's time rounded either way still falls on the right side.
	half := 0.0
	if info.FPS > 0 {
		half = 0.5 / info.FPS
	}
	var b, cat strings.Builder
	for i, k := range keep {
		a, e := max(0, k.Start-start), k.End-start
		fmt.Fprintf(&b, "[0:%d]trim=start=%.4f:end=%.4f,setpts=PTS-STARTPTS[v%d];", info.VideoStream, max(0, a-half), e-half, i)
		fmt.Fprintf(&cat, "[v%d]", i)
		if info.HasAudio {
			fade := math.Min(cutFadeSec, (e-a)/2)
			fmt.Fprintf(&b, "[0:%d]atrim=start=%.4f:end=%.4f,asetpts=PTS-STARTPTS,afade=t=in:st=0:d=%.3f,afade=t=out:st=%.3f:d=%.3f[a%d];",
				info.AudioStream, a, e, fade, e-a-fade, fade, i)
			fmt.Fprintf(&cat, "[a%d]", i)
		}
	}
	if !info.HasAudio {
		fmt.Fprintf(&b, "%sconcat=n=%d:v=1:a=0[cv];", cat.String(), len(keep))
		return b.String()
	}
	fmt.Fprintf(&b, "%sconcat=n=%d:v=1:a=1[cv][ca];", cat.String(), len(keep))
	return b.String()
}
