package faces

import (
	"math"
	"sort"
)

const (
	// DeadZone: while the main face stays within this fraction of the source
	// width of the crop's centre, the crop does not move; when it leaves,
	// the crop follows it to the zone's edge. It swallows the detector's
	// jitter (a pixel or two at the analysis size, under 1% of the width) and
	// small head moves. 0.06 keeps a face inside the middle 60% of a
	// portrait crop of a 16:9 source (whose width is 0.32 of the source's).
	DeadZone = 0.06
	// MaxPanSpeed is the fastest the crop's centre moves within a shot, in
	// fractions of the source width per second: a quarter of the width in a
	// second, so following someone across a 16:9 frame takes a few seconds,
	// as a camera operator would pan. Only a cut moves it faster.
	MaxPanSpeed = 0.25
)

// Follow turns the main faces of shots into the crop centre's path: keys
// (T seconds, X fraction of the source width) joined linearly. Within a
// shot the path starts at the main face of the shot's first sample,
// ignores single-sample outliers (a median of three), stays still inside
// the dead zone and moves at most MaxPanSpeed; at a cut it steps: two keys
// at the cut's time, the old place then the new. A shot without a face
// holds still at fallback(start, end) (the centre of motion). No face in
// any shot: nil.
func Follow(shots []Shot, fallback func(start, end float64) float64) []Point {
	hasFace := false
	for _, s := range shots {
		hasFace = hasFace || len(s.Main) > 0
	}
	if !hasFace {
		return nil
	}
	var keys []Point
	for _, s := range shots {
		keys = append(keys, followShot(s, fallback)...)
	}
	return simplify(keys)
}

// PanelDeadZone is FacePath's dead zone: a panel's crop is a few face
// sides wide, narrower than the follow crop, so it moves sooner.
const PanelDeadZone = DeadZone / 3

// FacePath is the path a panel's crop of the shot's face i takes (as
// Follow's for the main face: outliers ignored, a dead zone, at most
// MaxPanSpeed), nil when the face stays inside the dead zone for the whole
// shot: the panel holds still at the face's median place then.
func FacePath(s Shot, i int) []Point {
	track := s.Faces[i].Track
	if len(track) == 0 {
		return nil
	}
	lo, hi := track[0].X, track[0].X
	for _, p := range track {
		lo, hi = min(lo, p.X), max(hi, p.X)
	}
	if hi-lo <= 2*PanelDeadZone {
		return nil
	}
	return simplify(followWithin(Shot{Start: s.Start, End: s.End, Main: track}, PanelDeadZone))
}

func followShot(s Shot, fallback func(start, end float64) float64) []Point {
	if len(s.Main) == 0 {
		x := clamp01(fallback(s.Start, s.End))
		return []Point{{s.Start, x}, {s.End, x}}
	}
	return followWithin(s, DeadZone)
}

// followWithin is the path along s.Main with the dead zone dead.
func followWithin(s Shot, dead float64) []Point {
	target := median3(s.Main)
	pos := target[0].X
	keys := []Point{{s.Start, pos}}
	prevT := s.Start
	for _, p := range target {
		t := min(max(p.T, prevT), s.End)
		want := pos
		switch {
		case p.X > pos+dead:
			want = p.X - dead
		case p.X < pos-dead:
			want = p.X + dead
		}
		limit := MaxPanSpeed * (t - prevT)
		pos += max(-limit, min(limit, want-pos))
		keys = append(keys, Point{t, pos})
		prevT = t
	}
	return append(keys, Point{s.End, pos})
}

// median3 replaces each X by the median of it and its neighbours (the ends
// keep theirs), so one misplaced sample does not pull the crop.
func median3(pts []Point) []Point {
	out := append([]Point(nil), pts...)
	for i := 1; i+1 < len(pts); i++ {
		v := []float64{pts[i-1].X, pts[i].X, pts[i+1].X}
		sort.Float64s(v)
		out[i].X = v[1]
	}
	return out
}

// simplify drops keys that the line through their neighbours passes
// through (a still crop needs two keys, a steady pan two) and keys at one
// time that say the same; a step (two keys at one time, different places)
// stays.
func simplify(keys []Point) []Point {
	var out []Point
	for _, k := range keys {
		if n := len(out); n > 0 && math.Abs(out[n-1].T-k.T) < 1e-9 && math.Abs(out[n-1].X-k.X) < 1e-9 {
			continue
		}
		for len(out) >= 2 {
			a, b := out[len(out)-2], out[len(out)-1]
			if b.T-a.T < 1e-9 || k.T-b.T < 1e-9 {
				break // a step on either side
			}
			onLine := a.X + (b.X-a.X)*(k.T-a.T)/(b.T-a.T)
			if math.Abs(onLine-k.X) > 1e-6 {
				break
			}
			out = out[:len(out)-1]
		}
		out = append(out, k)
	}
	return out
}

func clamp01(v float64) float64 {
	if math.IsNaN(v) {
		return 0.5
	}
	return max(0, min(1, v))
}
