package faces

import (
	"math"
	"sort"
)

// Sample is one sampled frame of the source: its time in seconds and the
// faces Detect found in it (pixels of a frame W x H), with their Mouth
// measured by MeasureMouths.
type Sample struct {
	T     float64
	Faces []Box
}

// Face is a face that stays in a shot, in fractions of the picture: X, Y
// its median centre (of the width, of the height), Size its median side (of
// the height). Seen is the share of the shot's samples it was found in;
// Mouth its mean mouth activity (gray levels; NaN when never measured).
type Face struct {
	X, Y, Size float64
	Seen       float64
	Mouth      float64
	// Track is where the face is at each sample it was found in (X of the
	// width), in time order: a panel that shows it follows it (FacePath).
	Track []Point
}

// Point is where the main face is at time T: X in fractions of the width.
type Point struct{ T, X float64 }

// Shot is what the samples of one shot (Start..End seconds) show.
type Shot struct {
	Start, End float64
	// Faces stay in the shot (found in at least half its samples), largest
	// first, at most MaxFaces.
	Faces []Face
	// Speaker is the index in Faces of the face whose mouth moves clearly
	// more than the others' (see speakerOf), -1 when the picture cannot tell.
	Speaker int
	// Main is where the face to follow is at each of the shot's samples
	// (none when the shot has no face): the speaker when known, else the
	// largest face at the first sample, kept until another is clearly
	// larger for a while.
	Main []Point
}

const (
	// MaxFaces is the most faces a shot reports (the four layout's grid).
	MaxFaces = 4
	// linkDistance / linkSizeRatio: a face in one sample is the same as one
	// in another when their centres are within linkDistance of the larger
	// side (plus MotionReach of the frame's width: a small face that walks
	// moves more than half its side between samples) and their sides within
	// this ratio.
	linkDistance  = 0.5
	linkSizeRatio = 1.5
	// maxLinkGap: a face missed for more samples than this (a second) may
	// still join its track, but within this many samples' motion.
	maxLinkGap = 4
	// stayShare: a track found in at least this share of a shot's samples
	// is a face of the shot; fewer is a passer-by or a false hit.
	stayShare = 0.5
	// speakerMinMouth: the speaker's mean mouth activity is at least this
	// (gray levels): a still face measures under 1.
	speakerMinMouth = 2.0
	// speakerRatio: and at least this multiple of any other face's.
	speakerRatio = 2.0
	// switchRatio / switchSamples: the main face (without a speaker) changes
	// only when another is this much larger for this many samples in a row.
	switchRatio   = 1.3
	switchSamples = 3
)

// track is one face linked over a shot's samples.
type track struct {
	at    []int // sample index of each box, increasing
	boxes []Box
}

func (t *track) last() Box { return t.boxes[len(t.boxes)-1] }

// boxAt is the track's box at sample i, or its nearest in time when it was
// not found there.
func (t *track) boxAt(i int) (Box, bool) {
	k := sort.SearchInts(t.at, i)
	if k < len(t.at) && t.at[k] == i {
		return t.boxes[k], true
	}
	switch {
	case k == 0:
		return t.boxes[0], false
	case k == len(t.at):
		return t.boxes[k-1], false
	case i-t.at[k-1] <= t.at[k]-i:
		return t.boxes[k-1], false
	}
	return t.boxes[k], false
}

// Shots splits samples (in time order) into the shots between cuts (over
// 0..duration) and finds each shot's faces, speaker and main face; w, h
// are the size of the frames the boxes are in.
func Shots(samples []Sample, cuts []float64, duration float64, w, h int) []Shot {
	bounds := append([]float64{0}, cuts...)
	bounds = append(bounds, duration)
	var out []Shot
	k := 0
	for i := 0; i+1 < len(bounds); i++ {
		start, end := bounds[i], bounds[i+1]
		if end <= start {
			continue
		}
		first := k
		for k < len(samples) && samples[k].T < end {
			k++
		}
		var in []Sample
		for _, s := range samples[first:k] {
			if s.T >= start {
				in = append(in, s)
			}
		}
		out = append(out, analyzeShot(in, start, end, w, h))
	}
	return out
}

func analyzeShot(samples []Sample, start, end float64, w, h int) Shot {
	shot := Shot{Start: start, End: end, Speaker: -1}
	tracks := link(samples, MotionReach*float64(w))
	n := len(samples)
	var stay []*track
	for _, t := range tracks {
		if float64(len(t.boxes)) >= stayShare*float64(n) {
			stay = append(stay, t)
		}
	}
	faces := make([]Face, len(stay))
	for i, t := range stay {
		faces[i] = summarize(t, n, w, h)
		for k, at := range t.at {
			faces[i].Track = append(faces[i].Track, Point{T: samples[at].T, X: t.boxes[k].X / float64(w)})
		}
	}
	order := make([]int, len(stay))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return faces[order[a]].Size > faces[order[b]].Size })
	if len(order) > MaxFaces {
		order = order[:MaxFaces]
	}
	kept := make([]*track, len(order))
	for i, j := range order {
		shot.Faces = append(shot.Faces, faces[j])
		kept[i] = stay[j]
	}
	if len(kept) == 0 {
		return shot
	}
	shot.Speaker = speakerOf(shot.Faces)
	shot.Main = mainPath(samples, kept, shot.Speaker, w)
	return shot
}

// link joins each sample's faces to the tracks of the earlier samples: the
// closest pairs first, each track and face used once; a face that joins
// none starts a track. reach is how far (pixels) a face may move between
// samples beyond linkDistance of its side.
func link(samples []Sample, reach float64) []*track {
	var tracks []*track
	for i, s := range samples {
		type pair struct {
			t, f int
			d    float64
		}
		var pairs []pair
		for ti, t := range tracks {
			lb := t.last()
			// A face missed for a few samples has moved on meanwhile.
			gap := float64(min(i-t.at[len(t.at)-1], maxLinkGap))
			for fi, f := range s.Faces {
				d := math.Hypot(f.X-lb.X, f.Y-lb.Y)
				if d < linkDistance*max(f.Size, lb.Size)+gap*reach && sizeRatio(f.Size, lb.Size) < linkSizeRatio {
					pairs = append(pairs, pair{ti, fi, d})
				}
			}
		}
		sort.SliceStable(pairs, func(a, b int) bool { return pairs[a].d < pairs[b].d })
		usedT, usedF := map[int]bool{}, map[int]bool{}
		for _, p := range pairs {
			if usedT[p.t] || usedF[p.f] {
				continue
			}
			usedT[p.t], usedF[p.f] = true, true
			tracks[p.t].at = append(tracks[p.t].at, i)
			tracks[p.t].boxes = append(tracks[p.t].boxes, s.Faces[p.f])
		}
		for fi, f := range s.Faces {
			if !usedF[fi] {
				tracks = append(tracks, &track{at: []int{i}, boxes: []Box{f}})
			}
		}
	}
	return tracks
}

func summarize(t *track, n, w, h int) Face {
	xs, ys, ss := make([]float64, len(t.boxes)), make([]float64, len(t.boxes)), make([]float64, len(t.boxes))
	mouth, measured := 0.0, 0
	for i, b := range t.boxes {
		xs[i], ys[i], ss[i] = b.X, b.Y, b.Size
		if !math.IsNaN(b.Mouth) {
			mouth += b.Mouth
			measured++
		}
	}
	f := Face{
		X: median(xs) / float64(w), Y: median(ys) / float64(h), Size: median(ss) / float64(h),
		Seen: float64(len(t.boxes)) / float64(n), Mouth: math.NaN(),
	}
	if measured > 0 {
		f.Mouth = mouth / float64(measured)
	}
	return f
}

// speakerOf is the face whose mean mouth activity is at least
// speakerMinMouth and speakerRatio times every other face's, or -1.
func speakerOf(faces []Face) int {
	best := -1
	for i, f := range faces {
		if !math.IsNaN(f.Mouth) && (best < 0 || f.Mouth > faces[best].Mouth) {
			best = i
		}
	}
	if best < 0 || faces[best].Mouth < speakerMinMouth {
		return -1
	}
	for i, f := range faces {
		if i != best && !math.IsNaN(f.Mouth) && faces[best].Mouth < speakerRatio*f.Mouth {
			return -1
		}
	}
	return best
}

// mainPath is where the main face is at each sample. With a speaker it is
// the speaker throughout; without, it starts as the largest face at the
// shot's first sample and changes only when another has been switchRatio times larger for
// switchSamples samples in a row, so two faces of about one size do not
// trade places from sample to sample.
func mainPath(samples []Sample, kept []*track, speaker, w int) []Point {
	main := 0
	if speaker >= 0 {
		main = speaker
	} else {
		// The largest face found in the first sample that finds any.
		first, firstAt := 0.0, len(samples)
		for j, t := range kept {
			if b := t.boxes[0]; t.at[0] < firstAt || t.at[0] == firstAt && b.Size > first {
				main, first, firstAt = j, b.Size, t.at[0]
			}
		}
	}
	pts := make([]Point, len(samples))
	challenger, streak := -1, 0
	for i, s := range samples {
		if speaker < 0 && len(kept) > 1 {
			cur, _ := kept[main].boxAt(i)
			best, bestSize := -1, cur.Size*switchRatio
			for j, t := range kept {
				if b, ok := t.boxAt(i); ok && j != main && b.Size > bestSize {
					best, bestSize = j, b.Size
				}
			}
			switch {
			case best < 0:
				challenger, streak = -1, 0
			case best == challenger:
				streak++
			default:
				challenger, streak = best, 1
			}
			if streak >= switchSamples {
				main, challenger, streak = best, -1, 0
			}
		}
		b, _ := kept[main].boxAt(i)
		pts[i] = Point{T: s.T, X: b.X / float64(w)}
	}
	return pts
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
