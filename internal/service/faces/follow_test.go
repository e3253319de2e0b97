package faces

import (
	"math"
	"testing"
)

// shotOf is a shot start..end whose main face is at x(t) at 4 samples a second.
func shotOf(start, end float64, x func(t float64) float64) Shot {
	s := Shot{Start: start, End: end, Speaker: -1, Faces: []Face{{X: x(start), Y: 0.5, Size: 0.3, Seen: 1}}}
	for t := math.Ceil(start*4) / 4; t < end; t += 0.25 {
		s.Main = append(s.Main, Point{t, x(t)})
	}
	return s
}

func noFallback(float64, float64) float64 { return math.NaN() }

// checkPath asserts the properties every path has: time never goes back,
// two keys at one time (a step) only at a cut, and between keys no faster
// than MaxPanSpeed.
func checkPath(t *testing.T, keys []Point, cuts []float64) {
	t.Helper()
	isCut := func(at float64) bool {
		for _, c := range cuts {
			if math.Abs(c-at) < 1e-9 {
				return true
			}
		}
		return false
	}
	for i := 1; i < len(keys); i++ {
		a, b := keys[i-1], keys[i]
		dt := b.T - a.T
		switch {
		case dt < -1e-12:
			t.Fatalf("key %d goes back in time: %+v then %+v", i, a, b)
		case dt < 1e-9:
			if !isCut(b.T) {
				t.Errorf("a step at %.3f s, which is not a cut %v", b.T, cuts)
			}
		case math.Abs(b.X-a.X)/dt > MaxPanSpeed+1e-9:
			t.Errorf("%.3f-%.3f s pans at %.3f of the width a second, over %g", a.T, b.T, math.Abs(b.X-a.X)/dt, MaxPanSpeed)
		}
	}
}

func TestFollowStaysStillInsideTheDeadZone(t *testing.T) {
	jitter := []float64{0.02, -0.03, 0.01, 0.04, -0.02, 0}
	i := 0
	keys := Follow([]Shot{shotOf(0, 5, func(float64) float64 { i++; return 0.5 + jitter[i%len(jitter)] })}, noFallback)
	checkPath(t, keys, nil)
	if len(keys) != 2 || keys[0].X != keys[1].X || keys[0].T != 0 || keys[1].T != 5 {
		t.Errorf("keys %+v: want the crop still over the shot (two keys, one place)", keys)
	}
}

func TestFollowPansBoundedAndFollowsAMovingFace(t *testing.T) {
	// From the left third to the right third in 6 s, as testvideo.MovingFace.
	move := func(t float64) float64 { return 1.0/3 + t/6/3 }
	keys := Follow([]Shot{shotOf(0, 6, move)}, noFallback)
	checkPath(t, keys, nil)
	if !near(keys[0].X, 1.0/3, 1e-9) {
		t.Errorf("starts at %.3f, want the face's 0.333", keys[0].X)
	}
	for tt := 0.0; tt <= 6; tt += 0.1 {
		if d := math.Abs(at(keys, tt) - move(tt)); d > DeadZone+0.02 {
			t.Errorf("at %.1f s the crop is %.3f from the face", tt, d)
		}
	}
	if last := keys[len(keys)-1]; last.T != 6 || last.X < 2.0/3-DeadZone-0.02 {
		t.Errorf("ends at %+v, want near the right third", last)
	}

	// A face that leaps across the frame mid-shot (another person takes over): the crop pans there, bounded.
	leap := func(t float64) float64 {
		if t < 2 {
			return 0.2
		}
		return 0.8
	}
	keys = Follow([]Shot{shotOf(0, 6, leap)}, noFallback)
	checkPath(t, keys, nil)
	if x := at(keys, 6); !near(x, 0.8-DeadZone, 1e-6) {
		t.Errorf("after the leap the crop rests at %.3f, want %.3f (the dead zone's edge)", x, 0.8-DeadZone)
	}
}

func TestFollowIgnoresAnOutlierSample(t *testing.T) {
	keys := Follow([]Shot{shotOf(0, 4, func(t float64) float64 {
		if t == 2 {
			return 0.9 // a false hit in one sample
		}
		return 0.3
	})}, noFallback)
	checkPath(t, keys, nil)
	if len(keys) != 2 || keys[0].X != 0.3 || keys[1].X != 0.3 {
		t.Errorf("keys %+v: want still at 0.3", keys)
	}
}

func TestFollowJumpsAtCutsOnly(t *testing.T) {
	wobble := func(t float64) float64 { return 0.25 + 0.05*math.Sin(t*9) } // a head that moves a little
	shots := []Shot{
		shotOf(0, 1.8, func(float64) float64 { return 1.0 / 3 }),
		shotOf(1.8, 4, func(float64) float64 { return 2.0 / 3 }),
		{Start: 4, End: 5, Speaker: -1}, // no face: the centre of motion
		shotOf(5, 7, wobble),
	}
	fallback := func(start, end float64) float64 {
		if start != 4 || end != 5 {
			t.Errorf("fallback asked for %.1f-%.1f, want the faceless shot 4-5", start, end)
		}
		return 0.55
	}
	cuts := []float64{1.8, 4, 5}
	keys := Follow(shots, fallback)
	checkPath(t, keys, cuts)
	for _, c := range []struct{ at, before, after float64 }{{1.8, 1.0 / 3, 2.0 / 3}, {4, 2.0 / 3, 0.55}, {5, 0.55, wobble(5)}} {
		var got []Point
		for _, k := range keys {
			if k.T == c.at {
				got = append(got, k)
			}
		}
		if len(got) != 2 || !near(got[0].X, c.before, 1e-9) || !near(got[1].X, c.after, 1e-9) {
			t.Errorf("at the cut %.1f: keys %+v, want a step from %.3f to %.3f", c.at, got, c.before, c.after)
		}
	}
}

func TestFollowWithoutFacesIsEmpty(t *testing.T) {
	if keys := Follow([]Shot{{Start: 0, End: 3, Speaker: -1}}, func(float64, float64) float64 { return 0.5 }); keys != nil {
		t.Errorf("keys %+v without a face, want none", keys)
	}
}

// at is the path's X at t (linear between keys; at a step, the later key).
func at(keys []Point, t float64) float64 {
	x := keys[0].X
	for i := 1; i < len(keys); i++ {
		a, b := keys[i-1], keys[i]
		if t >= b.T {
			x = b.X
			continue
		}
		if t >= a.T && b.T > a.T {
			return a.X + (b.X-a.X)*(t-a.T)/(b.T-a.T)
		}
		break
	}
	return x
}

// A face that stays within the panel's dead zone gets no path (its panel
// holds still); one that walks gets a path that reaches it, never faster
// than MaxPanSpeed, over the whole shot.
func TestFacePath(t *testing.T) {
	walk := func(from, to float64) []Point {
		var pts []Point
		for i := 0; i <= 32; i++ {
			pts = append(pts, Point{T: float64(i) / 4, X: from + (to-from)*float64(i)/32})
		}
		return pts
	}
	s := Shot{Start: 0, End: 8, Faces: []Face{{X: 0.5, Track: walk(0.5, 0.5+PanelDeadZone)}, {X: 0.3, Track: walk(0.2, 0.4)}}}
	if p := FacePath(s, 0); p != nil {
		t.Errorf("a face moving %.2f of the width has path %v, want none", PanelDeadZone, p)
	}
	p := FacePath(s, 1)
	if len(p) < 2 || p[0].T != 0 || p[len(p)-1].T != 8 {
		t.Fatalf("path %v, want keys from 0 to 8 s", p)
	}
	if last := p[len(p)-1].X; math.Abs(last-0.4) > PanelDeadZone+1e-9 {
		t.Errorf("the path ends at %.3f, want within the dead zone of the face's 0.4", last)
	}
	for i := 1; i < len(p); i++ {
		if dt := p[i].T - p[i-1].T; dt > 0 && math.Abs(p[i].X-p[i-1].X)/dt > MaxPanSpeed+1e-9 {
			t.Errorf("keys %v -> %v pan faster than %g of the width a second", p[i-1], p[i], MaxPanSpeed)
		}
	}
}
