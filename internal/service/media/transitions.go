package media

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
)

// Transitions between the pieces of a clip (RenderOptions.Transitions).
//
// A clip plays its pieces (the Keep pieces left by filler cuts) one after the other; a
// transition blends one into the next with an ffmpeg xfade. Where two pieces join, the
// picture and the sound of the last TransitionSec of the first piece overlap the first
// TransitionSec of the next (xfade and an equal-power acrossfade), so the clip is shorter by
// the overlaps and its captions move with it (ClipTime). With AtShots, a transition is also
// drawn at each shot cut inside a piece: there the speech runs on, so nothing overlaps: the
// last frame of the shot is held for half the transition and the next shot's first frame
// for the other half, the sound is untouched and the clip keeps its length.
//
// A transition lasts TransitionSec, or a third of the shorter part beside it; where that is
// under minTransitionSec the parts are joined by a plain cut.
const (
	TransitionSec    = 0.3
	minTransitionSec = 0.1
	// holdMarginSec: a held frame lasts this much longer than the transition needs, so
	// xfade never runs out of its first input one frame early; the second input runs this
	// much past the transition too.
	holdMarginSec = 0.05
)

// TransitionNames are the names selectedTransitions takes, each an ffmpeg xfade transition.
var TransitionNames = rules.TransitionNames

// DefaultTransition is drawn when transitions are on and none is named.
const DefaultTransition = "fade"

// Transitions asks for transitions in a render.
type Transitions struct {
	// Names are xfade transitions (TransitionNames), used in turn; empty with AtShots
	// is DefaultTransition.
	Names []string
	// AtShots also draws them at shot cuts inside the clip (enableAutoTransition).
	AtShots bool
}

// On reports whether t draws anything.
func (t Transitions) On() bool { return len(t.Names) > 0 || t.AtShots }

// Join is one transition of a clip.
type Join struct {
	At   float64 // where the parts meet, in seconds of the clip as its pieces play back to back
	Dur  float64 // the transition's length
	Name string  // the xfade transition
	Hold bool    // at a shot cut: frames held, no overlap, sound untouched
}

// ClipJoins are the transitions of the clip of h (its Keep pieces, or its span clamped to
// duration, the source's length) that opts asks for, in order.
func ClipJoins(h Highlight, duration float64, opts RenderOptions) []Join {
	t := opts.Transitions
	if !t.On() {
		return nil
	}
	pieces := clipPieces(h, duration, opts.Keep)
	type cand struct {
		at   float64
		hold bool
	}
	var cands []cand
	at := 0.0
	for i, pc := range pieces {
		if i > 0 {
			cands = append(cands, cand{at: at})
		}
		if t.AtShots {
			for _, sh := range opts.Shots {
				for _, b := range []float64{sh.Start, sh.End} {
					if b > pc.Start+1e-3 && b < pc.End-1e-3 {
						cands = append(cands, cand{at: at + b - pc.Start, hold: true})
					}
				}
			}
		}
		at += pc.End - pc.Start
	}
	total := at
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].at < cands[j].at })
	names := t.Names
	if len(names) == 0 {
		names = []string{DefaultTransition}
	}
	var joins []Join
	prev := 0.0
	for i, c := range cands {
		if i > 0 && c.at-cands[i-1].at < 1e-3 {
			continue // a shot bound that is also a piece bound, or two shots sharing a bound
		}
		next := total
		for _, d := range cands[i+1:] {
			if d.at-c.at >= 1e-3 {
				next = d.at
				break
			}
		}
		d := math.Min(TransitionSec, math.Min(c.at-prev, next-c.at)/3)
		if d < minTransitionSec {
			continue
		}
		joins = append(joins, Join{At: c.at, Dur: d, Name: names[len(joins)%len(names)], Hold: c.hold})
		prev = c.at
	}
	return joins
}

// Overlap is how much shorter the joins make a clip.
func Overlap(joins []Join) float64 {
	var s float64
	for _, j := range joins {
		if !j.Hold {
			s += j.Dur
		}
	}
	return s
}

// ClipTime maps t, seconds of the clip as its pieces play back to back (as the captions
// are timed from the kept pieces), to the rendered clip's time: each overlapping join
// before t takes its length off. A time inside an overlap belongs to the part before it.
func ClipTime(joins []Join, t float64) float64 {
	out := t
	for _, j := range joins {
		if !j.Hold && t >= j.At-1e-9 {
			out -= j.Dur
		}
	}
	return math.Max(0, out)
}

// transitionVideo splits the clip's picture (the open chain in, clip time as its pieces
// play back to back) at the joins and blends the parts with xfade. Only the frames of each
// transition go through xfade (ffmpeg 5.1's xfade costs as much for every frame it passes
// on as for the ones it blends): the picture is cut into the parts' bodies and, per join,
// the end of one part and the start of the next, blended; the pieces are then concatenated.
// It returns an open chain.
func transitionVideo(in string, joins []Join, total float64) string {
	if len(joins) == 0 {
		return in
	}
	type span struct{ a, b float64 }
	trim := func(sp span, last bool) string {
		if last {
			return fmt.Sprintf("trim=start=%.4f,setpts=PTS-STARTPTS", sp.a)
		}
		return fmt.Sprintf("trim=start=%.4f:end=%.4f,setpts=PTS-STARTPTS", sp.a, sp.b)
	}
	var b strings.Builder
	var cat strings.Builder
	n := 3*len(joins) + 1
	b.WriteString(in + ",split=" + fmt.Sprint(n))
	for i := range n {
		fmt.Fprintf(&b, "[tv%d]", i)
	}
	b.WriteString(";")
	at := 0.0 // where the next body starts
	for k, j := range joins {
		// An overlap blends [At-Dur, At) of one part with [At, At+Dur) of the next; a hold
		// blends [At-Dur/2, At) with its last frame held, and the next shot's first frame
		// held, then [At, At+Dur/2).
		// The second input runs holdMarginSec past the transition: ffmpeg 5.1's xfade never
		// ends when that input ends with it (the blend then takes its length).
		tail, head := span{j.At - j.Dur, j.At}, span{j.At, j.At + j.Dur + holdMarginSec}
		hold0, hold1 := "", ""
		if j.Hold {
			tail, head = span{j.At - j.Dur/2, j.At}, span{j.At, j.At + j.Dur/2 + holdMarginSec}
			hold0 = fmt.Sprintf(",tpad=stop_mode=clone:stop_duration=%.4f", j.Dur/2+holdMarginSec)
			hold1 = fmt.Sprintf(",tpad=start_mode=clone:start_duration=%.4f", j.Dur/2)
		}
		fmt.Fprintf(&b, "[tv%d]%s[tb%d];", 3*k, trim(span{at, tail.a}, false), k)
		fmt.Fprintf(&b, "[tv%d]%s%s[tt%d];", 3*k+1, trim(tail, false), hold0, k)
		fmt.Fprintf(&b, "[tv%d]%s%s[th%d];", 3*k+2, trim(head, false), hold1, k)
		fmt.Fprintf(&b, "[tt%d][th%d]xfade=transition=%s:duration=%.4f:offset=0[tx%d];", k, k, j.Name, j.Dur, k)
		fmt.Fprintf(&cat, "[tb%d][tx%d]", k, k)
		at = head.b
	}
	fmt.Fprintf(&b, "[tv%d]%s[tb%d];", n-1, trim(span{at, total}, true), len(joins))
	fmt.Fprintf(&cat, "[tb%d]", len(joins))
	return b.String() + cat.String() + fmt.Sprintf("concat=n=%d:v=1:a=0", 2*len(joins)+1)
}

// transitionAudio cross-fades the clip's sound (label in, clip time as its pieces play back
// to back) at the overlapping joins and leaves the result as [tadone]; held joins leave the
// sound alone. It returns the graph ("" when nothing overlaps) and the label to read.
func transitionAudio(in string, joins []Join) (string, string) {
	cuts := slices.DeleteFunc(slices.Clone(joins), func(j Join) bool { return j.Hold })
	if len(cuts) == 0 {
		return "", in
	}
	var b strings.Builder
	n := len(cuts) + 1
	b.WriteString(in + "asplit=" + fmt.Sprint(n))
	for i := range n {
		fmt.Fprintf(&b, "[ta%d]", i)
	}
	b.WriteString(";")
	for i := range n {
		trim := "atrim="
		if i > 0 {
			trim += fmt.Sprintf("start=%.4f", cuts[i-1].At)
		}
		if i < n-1 {
			if i > 0 {
				trim += ":"
			}
			trim += fmt.Sprintf("end=%.4f", cuts[i].At)
		}
		fmt.Fprintf(&b, "[ta%d]%s,asetpts=PTS-STARTPTS[tq%d];", i, trim, i)
	}
	prev := "[tq0]"
	for i, j := range cuts {
		// Equal power: the two sides are different sounds, so their powers add.
		fmt.Fprintf(&b, "%s[tq%d]acrossfade=d=%.4f:c1=qsin:c2=qsin[tx_a%d];", prev, i+1, j.Dur, i)
		prev = fmt.Sprintf("[tx_a%d]", i)
	}
	return b.String(), prev
}

// ValidTransition reports whether name is one of TransitionNames.
func ValidTransition(name string) bool { return slices.Contains(TransitionNames, name) }
