// Package faces finds faces in small grayscale frames with pigo (pure Go, no
// model download), links them over a shot's samples into tracks, picks the
// face that speaks, and turns the main face of each shot into a smoothed crop
// path.
//
// The detector's cascade, cascade/facefinder, is pigo's own (github.com/esimov/pigo
// v1.4.6, MIT: cascade/LICENSE), embedded so nothing is read or fetched at run time.
package faces

import (
	_ "embed" // the facefinder cascade
	"fmt"
	"math"
	"sort"
	"sync"

	pigo "github.com/esimov/pigo/core"
)

//go:embed cascade/facefinder
var facefinder []byte

// Box is one detected face in pixels of the frame it was found in: X, Y its
// centre, Size its side, Q the detector's summed confidence. Mouth is its
// mouth activity since the previous sample (see MeasureMouths), NaN unknown.
type Box struct {
	X, Y, Size float64
	Q          float64
	Mouth      float64
}

const (
	// MinFacePx is the smallest face searched, whatever the frame: about the
	// smallest the cascade still finds reliably (real faces of 20 px are
	// found in nearly every frame, of 16 px in a fifth). The caller sizes
	// its frames so the smallest face worth following is this big.
	MinFacePx = 20
	// shiftFactor / scaleFactor: the search window moves by 15% of its side
	// and grows by 20% per scale. pigo's usual 10% / 10% finds the same faces
	// (a face spans several windows either way) at 4-6 times the cost, which
	// the analysis pass cannot afford at a few frames a second.
	shiftFactor = 0.15
	scaleFactor = 1.2
	// iouThreshold merges raw hits that overlap this much into one face.
	iouThreshold = 0.2
	// minQuality: a merged face whose summed score is lower is a false hit
	// (textures of a testsrc2 pattern score 1-3; a real face tens).
	minQuality = 5.0
)

var (
	cascadeOnce sync.Once
	cascade     *pigo.Pigo
	cascadeErr  error
)

// classifier unpacks the embedded cascade once; the unpacked trees are only
// read afterwards, so one serves every goroutine.
func classifier() (*pigo.Pigo, error) {
	cascadeOnce.Do(func() {
		cascade, cascadeErr = pigo.NewPigo().Unpack(facefinder)
		if cascadeErr != nil {
			cascadeErr = fmt.Errorf("faces: unpack the facefinder cascade: %w", cascadeErr)
		}
	})
	return cascade, cascadeErr
}

// Detect returns the faces in gray, a w x h 8-bit frame (row-major, no
// padding), strongest first. A frame of the wrong size finds nothing.
func Detect(gray []byte, w, h int) []Box {
	if w < MinFacePx || h < MinFacePx || len(gray) < w*h {
		return nil
	}
	return run(gray, w, []window{{0, 0, w, h, MinFacePx, min(w, h)}})
}

// Around the faces of a previous sample, DetectNear searches a square of
// nearSpan sides about each, widened by MotionReach of the frame's width
// each way, for faces of nearMin to nearMax of its side: a face turns little
// in a quarter second, and moves at most about as far as someone crossing
// the picture in six seconds (a small face far more than its own side).
const (
	nearSpan         = 2.2
	nearMin, nearMax = 0.7, 1.45
	// MotionReach is how far (a fraction of the frame's width) a face may
	// move between two samples and still be the same face.
	MotionReach = 0.04
)

// DetectNear is Detect limited to the surroundings of the faces found in
// the previous sample (near, in the same frame size): a fraction of the
// cost of a whole frame, for the samples between two full searches. It
// finds no new face away from those.
func DetectNear(gray []byte, w, h int, near []Box) []Box {
	return run(gray, w, nearWindows(w, h, len(gray), near, 1))
}

// DetectAround is DetectNear around faces seen gap samples ago (they may
// have moved gap times as far), and where the upright search finds nothing
// it also looks for the face tilted or turned away (DetectTilted's poses;
// the windows are small, so this costs little).
func DetectAround(gray []byte, w, h int, near []Box, gap int) []Box {
	wins := nearWindows(w, h, len(gray), near, gap)
	found := run(gray, w, wins)
	var missed []window
	for _, win := range wins {
		hit := false
		for _, b := range found {
			hit = hit || b.X >= float64(win.x) && b.X < float64(win.x+win.w) && b.Y >= float64(win.y) && b.Y < float64(win.y+win.h)
		}
		if !hit {
			missed = append(missed, win)
		}
	}
	if len(missed) > 0 {
		found = Merge(found, runPoses(gray, w, missed, tilted))
	}
	return found
}

// nearWindows are the windows DetectNear searches around near (a frame of
// n pixels, w x h).
func nearWindows(w, h, n int, near []Box, gap int) []window {
	if w < MinFacePx || h < MinFacePx || n < w*h {
		return nil
	}
	var wins []window
	for _, b := range near {
		half := int(math.Ceil(nearSpan*b.Size/2 + float64(max(1, gap))*MotionReach*float64(w)))
		x0, y0 := max(0, int(b.X)-half), max(0, int(b.Y)-half)
		x1, y1 := min(w, int(b.X)+half), min(h, int(b.Y)+half)
		lo := max(MinFacePx, int(nearMin*b.Size))
		hi := min(int(math.Ceil(nearMax*b.Size)), x1-x0, y1-y0)
		if hi >= lo {
			wins = append(wins, window{x0, y0, x1 - x0, y1 - y0, lo, hi})
		}
	}
	return wins
}

// window is a part of a frame searched for faces of minSize..maxSize.
type window struct{ x, y, w, h, minSize, maxSize int }

// pose is how a search looks at a window: the cascade's window turned by
// angle (pigo's fraction of a full turn) and on the picture mirrored. The
// cascade finds upright, frontal faces; a head tilted by 20-30 degrees is
// found by a turned search, and a face turned away on one side (the
// cascade's scores are not symmetric) more often in the mirror.
type pose struct {
	angle  float64
	mirror bool
}

// tiltTurn is a tilted search's turn: about 27 degrees either way (pigo turns its
// window in steps; 0.06 finds heads tilted 20-30 degrees less often).
const tiltTurn = 0.075

var (
	upright = []pose{{0, false}}
	// tilted are the poses besides upright that DetectTilted searches.
	tilted = []pose{{tiltTurn, false}, {1 - tiltTurn, false}, {0, true}, {tiltTurn, true}, {1 - tiltTurn, true}}
)

// DetectTilted is Detect that also finds heads tilted sideways and faces
// partly turned away, at six times the cost: for small frames (the coarse
// search of a larger one).
func DetectTilted(gray []byte, w, h int) []Box {
	if w < MinFacePx || h < MinFacePx || len(gray) < w*h {
		return nil
	}
	win := []window{{0, 0, w, h, MinFacePx, min(w, h)}}
	return Merge(run(gray, w, win), runPoses(gray, w, win, tilted))
}

// run searches each window of gray (stride w) upright, merges the hits of
// all of them and keeps the faces that score minQuality.
func run(gray []byte, w int, wins []window) []Box {
	return runPoses(gray, w, wins, upright)
}

// runPoses is run in each of poses; the faces of each pose are scored on
// their own (summing the hits of several poses would lift false ones).
func runPoses(gray []byte, w int, wins []window, poses []pose) []Box {
	pg, err := classifier()
	if err != nil {
		// The cascade is embedded and tested: failing to unpack it is a broken build.
		panic(err)
	}
	var out []Box
	var flipped []byte
	for _, ps := range poses {
		var raw []pigo.Detection
		for _, win := range wins {
			// pigo indexes pixels as row*Dim+col: a window is the frame's pixels from
			// its top-left corner with the frame's stride; a mirrored one a copy.
			pix, dim := gray[win.y*w+win.x:], w
			if ps.mirror {
				flipped = mirror(gray, w, win, flipped)
				pix, dim = flipped, win.w
			}
			params := pigo.CascadeParams{
				MinSize:     win.minSize,
				MaxSize:     win.maxSize,
				ShiftFactor: shiftFactor,
				ScaleFactor: scaleFactor,
				ImageParams: pigo.ImageParams{Pixels: pix, Rows: win.h, Cols: win.w, Dim: dim},
			}
			for _, d := range pg.RunCascade(params, ps.angle) {
				if ps.mirror {
					d.Col = win.w - 1 - d.Col
				}
				d.Row += win.y
				d.Col += win.x
				raw = append(raw, d)
			}
		}
		for _, d := range pg.ClusterDetections(raw, iouThreshold) {
			if float64(d.Q) >= minQuality {
				out = append(out, Box{X: float64(d.Col), Y: float64(d.Row), Size: float64(d.Scale), Q: float64(d.Q), Mouth: math.NaN()})
			}
		}
	}
	out = dropNested(out)
	sort.Slice(out, func(i, j int) bool { return out[i].Q > out[j].Q })
	return out
}

// mirror copies window win of gray (stride w) into buf, each row reversed.
func mirror(gray []byte, w int, win window, buf []byte) []byte {
	buf = append(buf[:0], make([]byte, win.w*win.h)...)
	for y := range win.h {
		src := gray[(win.y+y)*w+win.x:][:win.w]
		dst := buf[y*win.w:][:win.w]
		for x, v := range src {
			dst[win.w-1-x] = v
		}
	}
	return buf
}

// dropNested removes a weaker face whose centre lies inside a stronger one:
// the cascade also fires on part of a face (an eye and a nose) at a smaller
// scale, which IoU clustering keeps apart when the sizes differ a lot.
func dropNested(in []Box) []Box {
	sort.Slice(in, func(i, j int) bool { return in[i].Q > in[j].Q })
	var out []Box
	for _, b := range in {
		inside := false
		for _, k := range out {
			if math.Abs(b.X-k.X) < k.Size/2 && math.Abs(b.Y-k.Y) < k.Size/2 {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, b)
		}
	}
	return out
}

// Merge joins the faces of two searches of one frame (a coarse search and
// one around known faces): a face whose centre lies inside a stronger one
// is the same face. Strongest first.
func Merge(a, b []Box) []Box {
	out := dropNested(append(append([]Box(nil), a...), b...))
	sort.Slice(out, func(i, j int) bool { return out[i].Q > out[j].Q })
	return out
}

// Scaled is boxes found in a frame k times smaller, in the larger frame's pixels.
func Scaled(boxes []Box, k float64) []Box {
	out := make([]Box, len(boxes))
	for i, b := range boxes {
		out[i] = b
		out[i].X, out[i].Y, out[i].Size = b.X*k, b.Y*k, b.Size*k
	}
	return out
}
