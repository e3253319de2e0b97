package media

import (
	"math"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/faces"
)

const (
	// faceFPS: the analysis samples faces 4 times a second (twice the centre
	// of motion's rate: every other face sample is a centre sample), enough
	// for a mouth that moves and a face that walks; a shot shorter than a
	// quarter second may have no sample and so no face.
	faceFPS = 4
	// faceQueue: sampled frames waiting for the detector. The detector runs
	// beside ffmpeg's decode (the machine has a core ffmpeg leaves idle); a
	// full queue holds ffmpeg back rather than growing.
	faceQueue = 32
	// fullSearchEvery: one sample in this many (one a second) is searched
	// whole; the others only around the previous sample's faces
	// (faces.DetectNear, about a ninth of the cost), unless the picture
	// changed as at a cut. A face that comes into a shot is found within a
	// second; the shot's first sample is always searched whole.
	fullSearchEvery = 4
)

// faceSampler runs face detection on the analysis' sampled frames in a
// goroutine of its own, in order, measuring each face's mouth against the
// previous sample.
type faceSampler struct {
	w, h    int
	in      chan faceFrame
	free    chan []byte
	done    chan struct{}
	samples []faces.Sample
}

type faceFrame struct {
	k   int // sample index: at k/faceFPS seconds
	pix []byte
}

func newFaceSampler(w, h int) *faceSampler {
	s := &faceSampler{w: w, h: h, in: make(chan faceFrame, faceQueue), free: make(chan []byte, faceQueue+2), done: make(chan struct{})}
	go s.run()
	return s
}

// add queues a copy of frame (w*h gray) as sample k.
func (s *faceSampler) add(k int, frame []byte) {
	var buf []byte
	select {
	case buf = <-s.free:
	default:
		buf = make([]byte, s.w*s.h)
	}
	copy(buf, frame)
	s.in <- faceFrame{k, buf}
}

// finish waits for the queued frames and returns the samples, in order.
func (s *faceSampler) finish() []faces.Sample {
	close(s.in)
	<-s.done
	return s.samples
}

func (s *faceSampler) run() {
	defer close(s.done)
	var prev []byte
	var prevFaces []faces.Box
	prevK := -2
	for f := range s.in {
		last := prev
		if f.k != prevK+1 {
			last = nil // not the previous sample: nothing to compare the mouths with
		}
		var found []faces.Box
		if last == nil || f.k%fullSearchEvery == 0 || cutBetween(f.pix, last) {
			found = faces.Detect(f.pix, s.w, s.h)
		} else {
			found = faces.DetectNear(f.pix, s.w, s.h, prevFaces)
		}
		faces.MeasureMouths(f.pix, last, s.w, s.h, found, prevFaces)
		s.samples = append(s.samples, faces.Sample{T: float64(f.k) / faceFPS, Faces: found})
		if prev != nil {
			select {
			case s.free <- prev:
			default:
			}
		}
		prev, prevFaces, prevK = f.pix, found, f.k
	}
}

// cutBetween tells whether two samples differ as across a cut (the mean
// change of every 7th pixel above cutDiff, the centre of motion's rule).
func cutBetween(a, b []byte) bool {
	sum, n := 0, 0
	for i := 0; i < len(a) && i < len(b); i += 7 {
		sum += absDiff(a[i], b[i])
		n++
	}
	return n > 0 && float64(sum)/float64(n) > cutDiff
}

// addFaces fills a.Shots and a.Follow from the face samples (found in
// w x h frames), the shots being the spans between a.SceneCuts. A shot
// without a face follows the mean centre of motion over it.
func addFaces(a *Analysis, samples []faces.Sample, w, h int) {
	shots := faces.Shots(samples, a.SceneCuts, a.DurationSec, w, h)
	a.Shots = make([]Shot, len(shots))
	for i, s := range shots {
		a.Shots[i] = Shot{Start: s.Start, End: s.End, Speaker: s.Speaker}
		for _, f := range s.Faces {
			a.Shots[i].Faces = append(a.Shots[i].Faces, FaceBox{X: f.X, Y: f.Y, Size: f.Size})
		}
	}
	path := faces.Follow(shots, func(start, end float64) float64 { return meanCentre(a, start, end) })
	for _, p := range path {
		a.Follow = append(a.Follow, PathKey{T: p.T, X: p.X})
	}
}

// meanCentre is the mean of a.CenterX over the windows whose middle lies
// in start..end (the nearest window when none does).
func meanCentre(a *Analysis, start, end float64) float64 {
	if len(a.CenterX) == 0 {
		return 0.5
	}
	sum, n := 0.0, 0
	for i, c := range a.CenterX {
		if mid := (float64(i) + 0.5) * a.WindowSec; mid >= start && mid < end {
			sum += c
			n++
		}
	}
	if n > 0 {
		return sum / float64(n)
	}
	i := int(math.Floor((start + end) / 2 / a.WindowSec))
	return a.CenterX[max(0, min(len(a.CenterX)-1, i))]
}
