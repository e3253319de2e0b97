package faces

import (
	"math"
	"testing"
)

const tw, th = 320, 180 // the frame size of the synthetic detections

// box is a face at x, y (pixels) of side s with mouth activity m.
func box(x, y, s, m float64) Box { return Box{X: x, Y: y, Size: s, Q: 50, Mouth: m} }

// samples4 is n samples at 4 per second from 0, each with the faces fn gives.
func samples4(n int, fn func(i int) []Box) []Sample {
	out := make([]Sample, n)
	for i := range out {
		out[i] = Sample{T: float64(i) / 4, Faces: fn(i)}
	}
	return out
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestAFaceThatStaysCountsAPasserByDoesNot(t *testing.T) {
	s := samples4(12, func(i int) []Box {
		fs := []Box{box(100+float64(i%3), 90, 50, 0.2)} // a little detector jitter
		if i >= 4 && i < 8 {
			fs = append(fs, box(250, 80, 60, 0.2)) // seen in 4 of 12 samples
		}
		return fs
	})
	shots := Shots(s, nil, 3, tw, th)
	if len(shots) != 1 || len(shots[0].Faces) != 1 {
		t.Fatalf("shots %+v: want one shot with one face", shots)
	}
	f := shots[0].Faces[0]
	if !near(f.X, 101.0/tw, 1e-9) || !near(f.Y, 0.5, 1e-9) || !near(f.Size, 50.0/th, 1e-9) || f.Seen != 1 {
		t.Errorf("face %+v: want the median place 101,90 side 50, seen in every sample", f)
	}
	if shots[0].Speaker != -1 {
		t.Errorf("speaker %d with one still face, want -1", shots[0].Speaker)
	}
}

func TestFacesLargestFirstAtMostFour(t *testing.T) {
	sizes := []float64{30, 50, 26, 40, 34}
	s := samples4(8, func(int) []Box {
		var fs []Box
		for k, sz := range sizes {
			fs = append(fs, box(30+float64(k)*60, 90, sz, math.NaN()))
		}
		return fs
	})
	faces := Shots(s, nil, 2, tw, th)[0].Faces
	if len(faces) != MaxFaces {
		t.Fatalf("%d faces, want %d", len(faces), MaxFaces)
	}
	for i, want := range []float64{50, 40, 34, 30} {
		if !near(faces[i].Size, want/th, 1e-9) {
			t.Errorf("face %d side %.1f px, want %.0f", i, faces[i].Size*th, want)
		}
	}
}

func TestAMovingFaceIsOneTrack(t *testing.T) {
	// 8 px a sample (a quarter of its side), the speed of a brisk walk across a 320 px frame.
	s := samples4(24, func(i int) []Box { return []Box{box(40+8*float64(i), 90, 40, 0.1)} })
	sh := Shots(s, nil, 6, tw, th)[0]
	if len(sh.Faces) != 1 {
		t.Fatalf("%d faces, want the one that moves", len(sh.Faces))
	}
	for i, p := range sh.Main {
		if want := (40 + 8*float64(i)) / tw; !near(p.X, want, 1e-9) {
			t.Errorf("main at %.2f s: %.3f, want %.3f", p.T, p.X, want)
		}
	}
}

func TestShotsSplitAtCuts(t *testing.T) {
	s := samples4(16, func(i int) []Box {
		if float64(i)/4 < 1.8 {
			return []Box{box(107, 90, 60, 0.2)}
		}
		return []Box{box(213, 90, 60, 0.2), box(60, 90, 40, 0.2)}
	})
	shots := Shots(s, []float64{1.8}, 4, tw, th)
	if len(shots) != 2 || shots[0].End != 1.8 || shots[1].Start != 1.8 || shots[1].End != 4 {
		t.Fatalf("shots %+v, want 0-1.8 and 1.8-4", shots)
	}
	if len(shots[0].Faces) != 1 || !near(shots[0].Faces[0].X, 107.0/tw, 1e-9) {
		t.Errorf("first shot faces %+v", shots[0].Faces)
	}
	if len(shots[1].Faces) != 2 || !near(shots[1].Faces[0].X, 213.0/tw, 1e-9) {
		t.Errorf("second shot faces %+v, want the larger at 213 first", shots[1].Faces)
	}
	if shots[1].Main[0].T != 2 || !near(shots[1].Main[0].X, 213.0/tw, 1e-9) {
		t.Errorf("second shot's main starts %+v, want the larger face at its first sample", shots[1].Main[0])
	}
}

func TestSpeakerIsTheFaceWhoseMouthMoves(t *testing.T) {
	two := func(left, right func(i int) float64) Shot {
		s := samples4(16, func(i int) []Box {
			return []Box{box(90, 90, 50, left(i)), box(230, 90, 52, right(i))}
		})
		return Shots(s, nil, 4, tw, th)[0]
	}
	talking := func(i int) float64 { return []float64{9, 1, 12, 7}[i%4] }
	still := func(i int) float64 { return []float64{0.3, 0.8, 0.1, 0.5}[i%4] }
	unknown := func(int) float64 { return math.NaN() }

	sh := two(talking, still)
	// Faces are largest first: the right face (52) is index 0.
	if sh.Speaker != 1 || !near(sh.Main[0].X, 90.0/tw, 1e-9) {
		t.Errorf("left talks: speaker %d main %.3f, want 1 (the left face) followed", sh.Speaker, sh.Main[0].X)
	}
	if sh := two(still, talking); sh.Speaker != 0 {
		t.Errorf("right talks: speaker %d, want 0", sh.Speaker)
	}
	if sh := two(talking, talking); sh.Speaker != -1 {
		t.Errorf("both talk: speaker %d, want -1", sh.Speaker)
	}
	if sh := two(still, still); sh.Speaker != -1 {
		t.Errorf("neither talks: speaker %d, want -1", sh.Speaker)
	}
	if sh := two(unknown, unknown); sh.Speaker != -1 || !near(sh.Main[0].X, 230.0/tw, 1e-9) {
		t.Errorf("unmeasured: speaker %d main %.3f, want -1 and the larger face", sh.Speaker, sh.Main[0].X)
	}
}

func TestMainFaceHasHysteresis(t *testing.T) {
	// Two faces of about one size whose detected sides trade the lead every sample.
	s := samples4(20, func(i int) []Box {
		a, b := 48.0, 52.0
		if i%2 == 1 {
			a, b = b, a
		}
		return []Box{box(80, 90, a, math.NaN()), box(240, 90, b, math.NaN())}
	})
	sh := Shots(s, nil, 5, tw, th)[0]
	for _, p := range sh.Main[1:] {
		if p.X != sh.Main[0].X {
			t.Fatalf("main face swapped at %.2f s (%.3f then %.3f)", p.T, sh.Main[0].X, p.X)
		}
	}
	// The right face walks up to the camera: 40 px, then 10 px more a sample from
	// sample 4 to 80 px; it is switchRatio times the left's 60 from sample 8 on.
	s = samples4(20, func(i int) []Box {
		b := min(80, 40+10*float64(max(0, i-4)))
		return []Box{box(80, 90, 60, math.NaN()), box(240, 90, b, math.NaN())}
	})
	sh = Shots(s, nil, 5, tw, th)[0]
	for i, p := range sh.Main {
		want := 80.0 / tw
		if i >= 8+switchSamples-1 {
			want = 240.0 / tw
		}
		if !near(p.X, want, 1e-9) {
			t.Errorf("sample %d: main %.3f, want %.3f", i, p.X, want)
		}
	}
}

func TestMeasureMouths(t *testing.T) {
	// A textured frame; a face at 100,80 of side 60.
	const w, h = 160, 140
	prev := make([]byte, w*h)
	x := uint32(7)
	for i := range prev {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		prev[i] = byte(60 + x%120)
	}
	f := box(80, 60, 60, 0)
	measure := func(cur []byte, curBox Box) float64 {
		c := []Box{curBox}
		MeasureMouths(cur, prev, w, h, c, []Box{f})
		return c[0].Mouth
	}
	same := append([]byte(nil), prev...)
	if m := measure(same, f); m != 0 {
		t.Errorf("unchanged frame: mouth %.2f, want 0", m)
	}
	// The mouth opens: the region below the face's centre darkens.
	open := append([]byte(nil), prev...)
	for y := 60 + 14; y < 60+25; y++ {
		for x := 72; x < 89; x++ {
			open[y*w+x] = 20
		}
	}
	if m := measure(open, f); m < 10 {
		t.Errorf("open mouth: %.2f, want a clear signal (>= 10)", m)
	}
	// The whole face moves 6 px right: compared at its place in each frame, nothing changed.
	moved := make([]byte, w*h)
	for y := range h {
		for x := range w {
			moved[y*w+x] = prev[y*w+max(0, x-6)]
		}
	}
	g := f
	g.X += 6
	if m := measure(moved, g); m > 0.5 {
		t.Errorf("moved face: mouth %.2f, want about 0", m)
	}
	// The light changes on the whole face: eyes and mouth change alike.
	bright := append([]byte(nil), prev...)
	for i := range bright {
		bright[i] += 25
	}
	if m := measure(bright, f); m > 0.5 {
		t.Errorf("brighter frame: mouth %.2f, want about 0", m)
	}
	c := []Box{f}
	MeasureMouths(same, nil, w, h, c, nil)
	if !math.IsNaN(c[0].Mouth) {
		t.Errorf("no previous frame: mouth %.2f, want NaN", c[0].Mouth)
	}
}
