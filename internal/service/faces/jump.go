package faces

import "math"

// A jump cut: between two samples the main face vanishes from its place and
// a face appears elsewhere, while most of the picture stays (the same
// background, a cut from one camera to another on one set, a face cut from
// the left third to the right). The whole picture's change is too small for
// a scene cut; for the crop it is one.

// jumpDiff: the mean change (gray levels) of a face's box between two
// samples above which the face was replaced, not moved or turned: a face
// that turns or talks changes its box by a few levels to 15, one cut to a
// background or to another face by several tens.
const jumpDiff = 22.0

// Jump tells whether frame cur (faces curFaces) follows prev (faces
// prevFaces) across a jump cut: the largest face of prev is in no face of
// cur, the largest of cur in no face of prev (farther than a face moves
// between samples), the pixels of both boxes changed by more than jumpDiff,
// and no face is found where the old one was.
func Jump(cur, prev []byte, w, h int, curFaces, prevFaces []Box) bool {
	if len(curFaces) == 0 || len(prevFaces) == 0 || len(cur) < w*h || len(prev) < w*h {
		return false
	}
	a, b := largest(prevFaces), largest(curFaces)
	reach := MotionReach * float64(w)
	for _, f := range curFaces {
		if linked(a, f, reach) {
			return false
		}
	}
	for _, f := range prevFaces {
		if linked(b, f, reach) {
			return false
		}
	}
	if boxChange(cur, prev, w, h, a) <= jumpDiff || boxChange(cur, prev, w, h, b) <= jumpDiff {
		return false
	}
	// The search that found cur's faces may have missed the old one: look for
	// it where it was, as closely as between two samples.
	return len(DetectNear(cur, w, h, []Box{a})) == 0
}

// linked tells whether a and b can be one face in two samples.
func linked(a, b Box, reach float64) bool {
	return math.Hypot(a.X-b.X, a.Y-b.Y) < linkDistance*max(a.Size, b.Size)+reach && sizeRatio(a.Size, b.Size) < linkSizeRatio
}

func largest(list []Box) Box {
	best := list[0]
	for _, b := range list[1:] {
		if b.Size > best.Size {
			best = b
		}
	}
	return best
}

// boxChange is the mean absolute difference between cur and prev over the
// middle of box b (half its side each way of its centre, inside the frame).
func boxChange(cur, prev []byte, w, h int, b Box) float64 {
	r := b.Size / 2
	x0, x1 := max(0, int(math.Round(b.X-r))), min(w, int(math.Round(b.X+r)))
	y0, y1 := max(0, int(math.Round(b.Y-r))), min(h, int(math.Round(b.Y+r)))
	sum, n := 0, 0
	for y := y0; y < y1; y++ {
		row := y * w
		for x := x0; x < x1; x++ {
			sum += absDiff(cur[row+x], prev[row+x])
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(sum) / float64(n)
}
