package media

import (
	"io"
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
	// whole for the faces a coarse frame shows (faces.MinFacePx there); the
	// others only around the previous sample's faces (faces.DetectNear,
	// about a ninth of the cost), unless the picture changed as at a cut or
	// a face was lost. A face that comes into a shot is found within a
	// second; the shot's first sample is always searched whole.
	fullSearchEvery = 4
	// fineSearchEvery: one sample in this many (every four seconds) is
	// searched whole at the detection frame's own size, for the small faces
	// only it shows: the search that costs (its smallest windows are most of
	// it), so it runs seldom; also after a cut, and when a face was lost (at
	// most once a second). A small face that comes into a shot is found
	// within four seconds.
	fineSearchEvery = 16
	// minSourceFacePx: the detection frames are large enough that a face this
	// many pixels wide in the source is faces.MinFacePx in them (a person far
	// off in a 720p or 1080p shot), up to maxFaceScale times the coarse frame.
	minSourceFacePx = 40
	// maxFaceScale bounds the detection frame at 3 times the coarse frame
	// (960x540 for 16:9): a 4K source's smallest face found is then about 80 px.
	maxFaceScale = 3
)

// faceScale is how many times the coarse frame (2*sampleSide on its longer
// side) the detection frames of a w-wide source are, so a face of
// minSourceFacePx source pixels is faces.MinFacePx in them.
func faceScale(w, h int) int {
	long := float64(max(w, h))
	want := long * faces.MinFacePx / minSourceFacePx // the detection frame's longer side
	return max(1, min(maxFaceScale, int(math.Ceil(want/(2*sampleSide)-1e-9))))
}

// faceSampler runs face detection on the analysis' sampled frames in a
// goroutine of its own, in order, measuring each face's mouth against the
// previous sample.
type faceSampler struct {
	w, h     int // the detection frames
	scale    int // the coarse frame is w/scale x h/scale
	baseline bool
	in       chan faceFrame
	free     chan []byte
	done     chan struct{}
	samples  []faces.Sample
}

type faceFrame struct {
	k      int // sample index: at k/faceFPS seconds
	pix    []byte
	coarse []byte // pix shrunk scale times (pix itself at scale 1)
}

func newFaceSampler(w, h, scale int, baseline bool) *faceSampler {
	s := &faceSampler{w: w, h: h, scale: scale, baseline: baseline,
		in: make(chan faceFrame, faceQueue), free: make(chan []byte, faceQueue+2), done: make(chan struct{})}
	go s.run()
	return s
}

// add queues a copy of frame (w*h gray) as sample k.
func (s *faceSampler) add(k int, frame []byte) { s.addShrunk(k, frame, nil) }

// addShrunk queues copies of frame and of coarse, frame shrunk scale times
// (nil: the sampler shrinks it when it needs it).
func (s *faceSampler) addShrunk(k int, frame, coarse []byte) {
	var buf []byte
	select {
	case buf = <-s.free:
	default:
		buf = make([]byte, s.w*s.h+(s.w/s.scale)*(s.h/s.scale))
	}
	copy(buf, frame)
	f := faceFrame{k: k, pix: buf[:s.w*s.h], coarse: buf[s.w*s.h:]}
	if coarse != nil {
		copy(f.coarse, coarse)
	} else {
		shrink(frame, s.w, f.coarse, s.w/s.scale, s.h/s.scale, s.scale)
	}
	s.in <- f
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
	prevK, lastFine := -2, -fineSearchEvery
	lost := false // a face was lost since the last fine search
	var missing []missedFace
	var prevBuf []byte // the buffer of prev and its coarse frame, to reuse
	for f := range s.in {
		last := prev
		if f.k != prevK+1 {
			last = nil // not the previous sample: nothing to compare with
		}
		var found []faces.Box
		if s.wantsFineSearch(f, last, lastFine, lost) {
			found, lastFine, lost = s.searchWhole(f), f.k, false
		} else {
			found, lost = s.followFaces(f, prevFaces, missing, lost)
		}
		faces.MeasureMouths(f.pix, last, s.w, s.h, found, prevFaces)
		s.samples = append(s.samples, faces.Sample{T: float64(f.k) / faceFPS, Faces: found})
		s.recycle(prevBuf)
		prevBuf = f.pix[:cap(f.pix)]
		if !s.baseline {
			missing = stillMissing(missing, prevFaces, found, f.k, s.w)
		}
		prev, prevFaces, prevK = f.pix, found, f.k
	}
}

// wantsFineSearch reports whether sample f gets a whole search rather than
// following the faces of last (nil: not the previous sample): after a cut,
// every so often, and sooner when a face was lost since lastFine.
func (s *faceSampler) wantsFineSearch(f faceFrame, last []byte, lastFine int, lost bool) bool {
	fine := last == nil || cutBetween(f.pix, last)
	switch {
	case s.baseline || s.scale == 1:
		// One frame size: the whole search is the coarse one.
		fine = fine || f.k%fullSearchEvery == 0
	case !fine:
		fine = f.k-lastFine >= fineSearchEvery || lost && f.k-lastFine >= fullSearchEvery
	}
	return fine
}

// searchWhole looks for faces all over sample f.
func (s *faceSampler) searchWhole(f faceFrame) []faces.Box {
	found := faces.Detect(f.pix, s.w, s.h)
	if !s.baseline {
		// A whole search also looks for tilted and turned faces, in the
		// coarse frame (faces.DetectTilted costs six upright searches);
		// once found, DetectAround follows them as they are.
		found = faces.Merge(found, faces.Scaled(faces.DetectTilted(f.coarse, s.w/s.scale, s.h/s.scale), float64(s.scale)))
	}
	return found
}

// followFaces looks for the faces of the previous sample (and those missed
// lately) near where they were in sample f, and reports whether a face was
// lost since the last fine search; then, or every so often, the coarse
// frame is searched whole too.
func (s *faceSampler) followFaces(f faceFrame, prevFaces []faces.Box, missing []missedFace, lost bool) ([]faces.Box, bool) {
	var found []faces.Box
	if s.baseline {
		found = faces.DetectNear(f.pix, s.w, s.h, prevFaces)
	} else {
		found = faces.DetectAround(f.pix, s.w, s.h, prevFaces, 1)
		// Faces missed lately (a turn, a blink of the detector) are
		// looked for where they were, for a second.
		for _, m := range missing {
			if gap := f.k - m.k; gap <= fullSearchEvery {
				found = faces.Merge(found, faces.DetectAround(f.pix, s.w, s.h, []faces.Box{m.box}, gap))
			}
		}
	}
	lost = lost || len(found) < len(prevFaces)
	if !s.baseline && (lost || f.k%fullSearchEvery == 0) {
		found = faces.Merge(found, faces.Scaled(faces.Detect(f.coarse, s.w/s.scale, s.h/s.scale), float64(s.scale)))
	}
	return found, lost
}

// recycle offers a frame's buffer to addShrunk, unless enough wait there.
func (s *faceSampler) recycle(buf []byte) {
	if buf == nil {
		return
	}
	select {
	case s.free <- buf:
	default:
	}
}

// missedFace is a face last seen at sample k.
type missedFace struct {
	box faces.Box
	k   int
}

// stillMissing updates the faces missed lately at sample k: those of the
// previous sample not found now join (seen at k-1), those found again or
// missed for over a second leave.
func stillMissing(missing []missedFace, prevFaces, found []faces.Box, k, w int) []missedFace {
	reach := faces.MotionReach * float64(w)
	near := func(a faces.Box, gap int) bool {
		for _, b := range found {
			if math.Hypot(a.X-b.X, a.Y-b.Y) < 0.5*max(a.Size, b.Size)+float64(gap)*reach {
				return true
			}
		}
		return false
	}
	var out []missedFace
	for _, m := range missing {
		if k-m.k <= fullSearchEvery && !near(m.box, k-m.k) {
			out = append(out, m)
		}
	}
	for _, b := range prevFaces {
		if !near(b, 1) {
			out = append(out, missedFace{b, k - 1})
		}
	}
	return out
}

// shrink averages each k x k block of src (w wide) into dst (dw x dh).
func shrink(src []byte, w int, dst []byte, dw, dh, k int) {
	area := k * k
	sums := make([]int, dw)
	for y := range dh {
		clear(sums)
		// Add k rows into the column sums, k pixels a column, then divide.
		for dy := range k {
			line := src[(y*k+dy)*w : (y*k+dy)*w+dw*k]
			switch k {
			case 2:
				for x := range sums {
					sums[x] += int(line[2*x]) + int(line[2*x+1])
				}
			case 3:
				for x := range sums {
					sums[x] += int(line[3*x]) + int(line[3*x+1]) + int(line[3*x+2])
				}
			default:
				for i, v := range line {
					sums[i/k] += int(v)
				}
			}
		}
		row := dst[y*dw : (y+1)*dw]
		for x, v := range sums {
			row[x] = byte((v + area/2) / area)
		}
	}
}

// shrinkReader hands each w x h frame it reads from r to onFrame (with its
// index and the frame shrunk k times, w/k x h/k) and yields the shrunk one to
// its reader: the detection frames go to the face sampler, the coarse ones to
// it and to the centre of motion, from one stream, shrunk once.
type shrinkReader struct {
	r       io.Reader
	w, h, k int
	onFrame func(k int, frame, small []byte)
	frame   []byte
	small   []byte
	pending []byte
	n       int
}

func newShrinkReader(r io.Reader, w, h, k int, onFrame func(int, []byte, []byte)) *shrinkReader {
	return &shrinkReader{r: r, w: w, h: h, k: k, onFrame: onFrame, frame: make([]byte, w*h), small: make([]byte, (w/k)*(h/k))}
}

func (s *shrinkReader) Read(p []byte) (int, error) {
	if len(s.pending) == 0 {
		if _, err := io.ReadFull(s.r, s.frame); err != nil {
			return 0, err // io.EOF between frames is the end; readSamples tells the rest
		}
		shrink(s.frame, s.w, s.small, s.w/s.k, s.h/s.k, s.k)
		s.onFrame(s.n, s.frame, s.small)
		s.n++
		s.pending = s.small
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
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
		for j, f := range s.Faces {
			box := FaceBox{X: f.X, Y: f.Y, Size: f.Size}
			for _, p := range faces.FacePath(s, j) {
				box.Path = append(box.Path, PathKey{T: p.T, X: p.X})
			}
			a.Shots[i].Faces = append(a.Shots[i].Faces, box)
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

// FaceFrameSize is the size of the frames Analyze detects faces in for a
// w x h source (with opts.FaceBaseline, the size before issue 26).
func FaceFrameSize(w, h int, opts AnalyzeOptions) (int, int) {
	sw, sh := sampleSize(w, h)
	if opts.FaceBaseline {
		return 2 * sw, 2 * sh
	}
	k := faceScale(w, h)
	return 2 * sw * k, 2 * sh * k
}
