package faces

import "math"

// The speaking signal is measured on the pixels, not with pigo's landmark
// cascades: those place points with math/rand perturbations (the same frame
// gives different points on each run) and weigh 0.7 MB each, while what
// speaking changes is plain to see: the mouth region of a speaking face
// changes between samples, the rest of the face much less.
//
// Mouth activity of a face is the mean absolute change (gray levels, 0-255)
// of its mouth region since the previous sample, minus the mean change of
// its eye band: both regions are taken at the face's place in each frame,
// so a face that moves is compared with itself, and what the whole face
// does (moving, light, compression noise, the detector's jitter) cancels.
// A still face with a closed mouth measures about 0; a talking one several
// levels.

// Regions of a face box, in units of its side from its centre: the mouth
// below the nose, the eye band above it, both half the side wide.
const (
	regionHalfW              = 0.2
	mouthTop, mouthBottom    = 0.18, 0.45
	eyeBandTop, eyeBandBelow = -0.28, -0.01
)

// MeasureMouths sets Mouth on each face in cur (found in frame cur) from
// the same face in the previous sample's frame prev (found at prevFaces):
// the nearest previous face within half a side and of a like size. A face
// with no such match, or no previous frame, gets NaN.
func MeasureMouths(cur, prev []byte, w, h int, curFaces, prevFaces []Box) {
	for i := range curFaces {
		curFaces[i].Mouth = math.NaN()
		if prev == nil || len(cur) < w*h || len(prev) < w*h {
			continue
		}
		j := nearest(prevFaces, curFaces[i])
		if j < 0 {
			continue
		}
		c, p := curFaces[i], prevFaces[j]
		mouth := regionChange(cur, prev, w, h, c, p, mouthTop, mouthBottom)
		eyes := regionChange(cur, prev, w, h, c, p, eyeBandTop, eyeBandBelow)
		if math.IsNaN(mouth) || math.IsNaN(eyes) {
			continue
		}
		curFaces[i].Mouth = max(0, mouth-eyes)
	}
}

// nearest is the index of the face in list that is b's in another sample
// (centres within half a side, sides within a ratio of linkSizeRatio), or -1.
func nearest(list []Box, b Box) int {
	best, bestD := -1, math.Inf(1)
	for j, o := range list {
		d := math.Hypot(o.X-b.X, o.Y-b.Y)
		if d < linkDistance*max(o.Size, b.Size) && sizeRatio(o.Size, b.Size) < linkSizeRatio && d < bestD {
			best, bestD = j, d
		}
	}
	return best
}

// regionChange is the mean absolute difference between the region
// (top..bottom in sides below the centre, regionHalfW sides either side) of
// box c in cur and the same region of box p in prev, sampled at c's size.
// NaN when the region leaves either frame.
func regionChange(cur, prev []byte, w, h int, c, p Box, top, bottom float64) float64 {
	s := c.Size
	x0, x1 := int(math.Round(-regionHalfW*s)), int(math.Round(regionHalfW*s))
	y0, y1 := int(math.Round(top*s)), int(math.Round(bottom*s))
	cx, cy := int(math.Round(c.X)), int(math.Round(c.Y))
	px, py := int(math.Round(p.X)), int(math.Round(p.Y))
	inside := func(x, y int) bool { return x+x0 >= 0 && x+x1 < w && y+y0 >= 0 && y+y1 < h }
	if x1 <= x0 || y1 <= y0 || !inside(cx, cy) || !inside(px, py) {
		return math.NaN()
	}
	sum, n := 0, 0
	for dy := y0; dy <= y1; dy++ {
		rc, rp := (cy+dy)*w+cx, (py+dy)*w+px
		for dx := x0; dx <= x1; dx++ {
			sum += absDiff(cur[rc+dx], prev[rp+dx])
			n++
		}
	}
	return float64(sum) / float64(n)
}

func absDiff(a, b byte) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

func sizeRatio(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if b <= 0 {
		return math.Inf(1)
	}
	return a / b
}
