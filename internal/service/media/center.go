package media

import (
	"errors"
	"fmt"
	"io"
	"math"
)

const (
	// pixelNoise: per-pixel changes or gradients below this are compression noise.
	pixelNoise = 10
	// cutDiff: a mean per-pixel change above this between samples is a cut, not motion.
	cutDiff = 40
	// edgeWeight: motion says more about where the subject is than static detail does.
	edgeWeight = 0.25
)

// readSamples reads w*h grayscale frames until EOF, hands each to sample (which must
// copy it) with its index, and returns, for every every-th frame halved to (w/2)x(h/2),
// the horizontal centre of interest in 0..1 or NaN when the frame gives no clue (flat
// and still).
func readSamples(r io.Reader, w, h, every int, sample func(k int, frame []byte)) ([]float64, error) {
	frame := make([]byte, w*h)
	sw, sh := w/2, h/2
	thumb, prev := make([]byte, sw*sh), make([]byte, sw*sh)
	col := make([]float64, sw)
	var out []float64
	for k := 0; ; k++ {
		if _, err := io.ReadFull(r, frame); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, fmt.Errorf("frame %d: %w", k, err)
		}
		sample(k, frame)
		if k%every != 0 {
			continue
		}
		halve(frame, w, thumb, sw, sh)
		out = append(out, centreOf(thumb, prev, len(out) > 0, sw, sh, col))
		prev, thumb = thumb, prev
	}
}

// halve averages each 2x2 block of src (w wide) into dst (sw x sh).
func halve(src []byte, w int, dst []byte, sw, sh int) {
	for y := range sh {
		a, b := src[2*y*w:], src[(2*y+1)*w:]
		row := dst[y*sw : (y+1)*sw]
		for x := range row {
			row[x] = byte((int(a[2*x]) + int(a[2*x+1]) + int(b[2*x]) + int(b[2*x+1]) + 2) / 4)
		}
	}
}

// centreOf weighs every column by the motion since the previous sample plus a little edge
// energy, and returns the weighted mean column.
func centreOf(cur, prev []byte, hasPrev bool, w, h int, col []float64) float64 {
	clear(col)
	motion, total := 0.0, 0.0
	if hasPrev {
		sum := 0
		for i := range cur {
			sum += absDiff(cur[i], prev[i])
		}
		// Across a cut everything changes: that says nothing about the subject.
		if float64(sum)/float64(len(cur)) < cutDiff {
			for y := range h {
				row := y * w
				for x := range w {
					if d := absDiff(cur[row+x], prev[row+x]); d > pixelNoise {
						col[x] += float64(d)
						motion += float64(d)
					}
				}
			}
		}
	}
	for y := range h {
		row := y * w
		for x := 1; x < w; x++ {
			if g := absDiff(cur[row+x], cur[row+x-1]); g > pixelNoise {
				col[x] += edgeWeight * float64(g)
				col[x-1] += edgeWeight * float64(g)
			}
		}
	}
	weighted := 0.0
	for x, v := range col {
		weighted += v * (float64(x) + 0.5)
		total += v
	}
	if total < float64(h) { // less than about one clear edge pixel per row
		return math.NaN()
	}
	return weighted / total / float64(w)
}

func absDiff(a, b byte) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// smoothCentres maps samples (one per window) to n windows: unknown samples take the nearest
// known value (0.5 when none), then a centred 5-window mean within the same shot steadies the
// crop without blending two shots.
func smoothCentres(samples []float64, n int, windowSec float64, cuts []float64) []float64 {
	shot := make([]int, n)
	for i, c := 0, 0; i < n; i++ {
		for c < len(cuts) && cuts[c] <= (float64(i)+0.5)*windowSec {
			c++
		}
		shot[i] = c
	}
	raw := make([]float64, n)
	last := math.NaN()
	for i := range raw {
		raw[i] = math.NaN()
		if i < len(samples) && !math.IsNaN(samples[i]) {
			raw[i] = samples[i]
			last = samples[i]
		} else if !math.IsNaN(last) {
			raw[i] = last
		}
	}
	next := 0.5
	for i := n - 1; i >= 0; i-- { // leading unknowns take the first known value
		if math.IsNaN(raw[i]) {
			raw[i] = next
		} else {
			next = raw[i]
		}
	}
	out := make([]float64, n)
	const half = 2
	for i := range out {
		sum, cnt := 0.0, 0
		for j := max(0, i-half); j <= min(n-1, i+half); j++ {
			if shot[j] != shot[i] {
				continue
			}
			sum += raw[j]
			cnt++
		}
		out[i] = sum / float64(cnt)
	}
	return out
}
