package faces

import (
	"math"
	"testing"
)

func samplesOf(xs []float64, size float64) []Sample {
	out := make([]Sample, len(xs))
	for i, x := range xs {
		out[i].T = float64(i) / 4
		if !math.IsNaN(x) {
			out[i].Faces = []Box{{X: x, Y: 100, Size: size, Q: 20, Mouth: math.NaN()}}
		}
	}
	return out
}

func TestJumpCutsFindsAFaceCutAcross(t *testing.T) {
	nan := math.NaN()
	// A face at the left third, missed for two samples at the cut, then at the right third.
	got := JumpCuts(samplesOf([]float64{320, 321, 319, 320, nan, nan, 640, 641, 640}, 40), 960)
	if len(got) != 1 || got[0] != (Jump{Before: 3, After: 6}) {
		t.Errorf("jumps %+v, want one between samples 3 and 6", got)
	}
}

func TestJumpCutsIgnoresAWalkingFace(t *testing.T) {
	// A small face (22 px) crossing a 960-px frame in about five seconds:
	// 30 px a sample, more than its side, with a missed sample.
	var xs []float64
	for i := range 20 {
		xs = append(xs, 200+30*float64(i))
	}
	xs[9] = math.NaN()
	if got := JumpCuts(samplesOf(xs, 22), 960); len(got) != 0 {
		t.Errorf("jumps %+v in a face that walks, want none", got)
	}
}
