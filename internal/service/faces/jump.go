package faces

// A jump cut: the main face vanishes from its place and a face appears
// elsewhere, while most of the picture stays (the same background, a cut
// from one camera to another on one set, a face cut from the left third to
// the right). The whole picture's change is too small for a scene cut; for
// the crop it is one.

// Jump is a jump cut between samples Before and After (indices of the
// samples given to JumpCuts): the cut is at a frame in between.
type Jump struct{ Before, After int }

// jumpGap: the old face was last seen at most this many samples before the
// new one first is (the search that finds a new face runs within a second
// of losing one).
const jumpGap = 5

// JumpCuts finds the jump cuts in samples (frames w wide): a track of at
// least two samples, the largest face where it ends, is never seen again,
// and within jumpGap samples a track of at least two samples starts that is
// not the same face (farther than it could have moved meanwhile).
func JumpCuts(samples []Sample, w int) []Jump {
	tracks := link(samples, MotionReach*float64(w))
	var out []Jump
	for _, b := range tracks {
		if len(b.at) < 2 || b.at[0] == 0 {
			continue
		}
		start := b.at[0]
		best := -1
		for _, a := range tracks {
			end := a.at[len(a.at)-1]
			if a == b || len(a.at) < 2 || end >= start || start-end > jumpGap || !largestAt(samples[end], a.last()) {
				continue
			}
			if best < 0 || end > best {
				best = end
			}
		}
		if best >= 0 && (len(out) == 0 || out[len(out)-1].After < start) {
			out = append(out, Jump{Before: best, After: start})
		}
	}
	return out
}

// largestAt tells whether f is the largest face of sample s (within a tenth).
func largestAt(s Sample, f Box) bool {
	for _, g := range s.Faces {
		if g.Size > 1.1*f.Size {
			return false
		}
	}
	return true
}
