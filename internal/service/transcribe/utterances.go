package transcribe

import (
	"math"
	"sort"
)

// Segmentation at pauses before decoding: pocketsphinx normalises each
// utterance's cepstra by their own mean (-cmn current), which is right only
// over one speaker's stretch of speech and wrong over the first seconds of a
// live estimate (pocketsphinx_continuous's -cmn live, which garbled short
// real recordings). So the audio is cut into utterances at its pauses, each
// decoded as a whole.

const (
	// frameSec is the analysis frame: pocketsphinx's 100 frames a second.
	frameSec = 0.01
	// uttMinSec / uttMaxSec bound an utterance: shorter ones join their
	// neighbour (a mean over under two seconds is noisy), longer ones are cut
	// at their quietest stretch.
	uttMinSec = 2.0
	uttMaxSec = 20.0
	// uttPadSec of the pause is kept on each side of an utterance, for the
	// words' soft edges.
	uttPadSec = 0.15
	// uttPauseSec: quieter than the pause level this long is a pause.
	uttPauseSec = 0.25
)

// silenceDB: a frame quieter than this is silence in any recording.
const silenceDB = -60

// pauseLevel is the level below which a frame is a pause: a third of the
// way from the noise floor (the 10th percentile of the frames' levels) to
// the speech level (their 90th percentile), at least 6 dB over the floor
// and 10 under the speech (audio that is nearly all speech has its floor
// among the speech), and never under silenceDB. Relative, because real
// recordings have floors from -90 dB (studio) to -30 dB (radio), where a
// fixed threshold finds no pause or nothing but pauses.
func pauseLevel(levels []float64) float64 {
	if len(levels) == 0 {
		return 0
	}
	s := append([]float64(nil), levels...)
	sort.Float64s(s)
	floor, speech := s[len(s)/10], s[len(s)*9/10]
	return max(silenceDB, min(floor+max(6, (speech-floor)/3), speech-10))
}

// Utterances cuts audio of the frames' levels into utterances (seconds) at
// its pauses: stretches of speech between pauses of at least uttPauseSec,
// joined while shorter than uttMinSec, cut at their quietest 0.1 s when
// longer than uttMaxSec, padded into the pauses around them by uttPadSec.
// Audio without a pause above the level (silence) has no utterance.
func Utterances(levels []float64) []Span {
	if len(levels) == 0 {
		return nil
	}
	runs := speechRuns(levels, pauseLevel(levels), int(math.Round(uttPauseSec/frameSec)))
	// Speech of under 0.1 s is a click, not an utterance.
	kept := runs[:0]
	for _, r := range runs {
		if r.to-r.from >= 10 {
			kept = append(kept, r)
		}
	}
	cut := cutLongRuns(joinShortRuns(kept), levels)
	pad := int(math.Round(uttPadSec / frameSec))
	out := make([]Span, len(cut))
	for i, r := range cut {
		from, to := max(0, r.from-pad), min(len(levels), r.to+pad)
		if i > 0 {
			from = max(from, cut[i-1].to) // never into the previous utterance
		}
		if i+1 < len(cut) {
			to = min(to, cut[i+1].from)
		}
		out[i] = Span{float64(from) * frameSec, float64(to) * frameSec}
	}
	return out
}

// frameRun is a stretch of frames [from, to).
type frameRun struct{ from, to int }

// speechRuns are the stretches of frames at or above threshold, bridging
// gaps shorter than minPause frames.
func speechRuns(levels []float64, threshold float64, minPause int) []frameRun {
	var runs []frameRun
	for i := 0; i < len(levels); {
		if levels[i] < threshold {
			i++
			continue
		}
		r := frameRun{i, i}
		quiet := 0
		for ; i < len(levels); i++ {
			if levels[i] < threshold {
				quiet++
				if quiet >= minPause {
					break
				}
				continue
			}
			quiet = 0
			r.to = i + 1
		}
		runs = append(runs, r)
	}
	return runs
}

// joinShortRuns joins runs shorter than uttMinSec to their neighbour across
// the shorter pause until all are long enough or there is one; a join that
// would pass uttMaxSec is not made.
func joinShortRuns(runs []frameRun) []frameRun {
	minFrames := int(uttMinSec / frameSec)
	for len(runs) > 1 {
		shortest := -1
		for i, r := range runs {
			if r.to-r.from < minFrames && (shortest < 0 || r.to-r.from < runs[shortest].to-runs[shortest].from) {
				shortest = i
			}
		}
		if shortest < 0 {
			break
		}
		j := shortest - 1 // join with the neighbour across the shorter pause
		if shortest == 0 || shortest+1 < len(runs) && runs[shortest+1].from-runs[shortest].to < runs[shortest].from-runs[shortest-1].to {
			j = shortest
		}
		if j+1 >= len(runs) {
			break
		}
		if runs[j+1].to-runs[j].from > int(uttMaxSec/frameSec) {
			break // joined it would be too long: leave it short
		}
		runs[j].to = runs[j+1].to
		runs = append(runs[:j+1], runs[j+2:]...)
	}
	return runs
}

// cutLongRuns cuts runs longer than uttMaxSec at their quietest tenth of a
// second past their first uttMinSec.
func cutLongRuns(runs []frameRun, levels []float64) []frameRun {
	minFrames, maxFrames := int(uttMinSec/frameSec), int(uttMaxSec/frameSec)
	var cut []frameRun
	for _, r := range runs {
		for r.to-r.from > maxFrames {
			best, bestLevel := r.from+maxFrames, math.Inf(1)
			for c := r.from + minFrames; c+10 <= r.from+maxFrames; c++ {
				var l float64
				for _, v := range levels[c : c+10] {
					l += v
				}
				if l < bestLevel {
					best, bestLevel = c+5, l
				}
			}
			cut = append(cut, frameRun{r.from, best})
			r.from = best
		}
		cut = append(cut, r)
	}
	return cut
}

// narrowbandMeter tells whether 16 kHz audio carries nothing above 4 kHz:
// audio that was 8 kHz (a telephone, a radio, a codec) before it was
// resampled. Every 10 ms frame's spectrum (a 256-point FFT of the frame and
// the one before it, Hann window) gives its energy from 5 to 6.5 kHz
// against that from 3 to 3.8 kHz, just under the cliff an 8 kHz source has
// at 4 kHz (a wideband recording's spectrum slopes there, however dull);
// those of the louder half of the frames, where the speech is, are summed.
type narrowbandMeter struct {
	prev, cur []float64 // the last two frames' samples
	frames    [][2]float64
	re, im    []float64
}

func newNarrowbandMeter() *narrowbandMeter {
	return &narrowbandMeter{re: make([]float64, 256), im: make([]float64, 256)}
}

// add takes one sample (-1..1).
func (m *narrowbandMeter) add(x float64) { m.cur = append(m.cur, x) }

func (m *narrowbandMeter) endFrame() {
	if len(m.prev)+len(m.cur) == 320 {
		for i := range m.re {
			// 256 samples: the last 96 of the previous frame and this one.
			var x float64
			if j := i + 64; j < 160 {
				x = m.prev[j]
			} else {
				x = m.cur[j-160]
			}
			m.re[i] = x * (0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/255))
			m.im[i] = 0
		}
		fft(m.re, m.im)
		var low, high float64
		for k := 1; k < 128; k++ {
			p := m.re[k]*m.re[k] + m.im[k]*m.im[k]
			switch hz := float64(k) * 16000 / 256; {
			case hz >= 3000 && hz <= 3800:
				low += p
			case hz >= 5000 && hz <= 6500:
				high += p
			}
		}
		m.frames = append(m.frames, [2]float64{low, high})
	}
	m.prev, m.cur = m.cur, m.prev[:0]
}

// highBandDB is the energy from 5 to 6.5 kHz against that from 3 to 3.8
// kHz, in dB, over the louder half of the frames.
func (m *narrowbandMeter) highBandDB() float64 {
	f := m.frames
	if len(f) == 0 {
		return 0
	}
	sort.Slice(f, func(i, j int) bool { return f[i][0] > f[j][0] })
	var low, high float64
	for _, v := range f[:max(1, len(f)/2)] {
		low += v[0]
		high += v[1]
	}
	if low == 0 {
		return 0
	}
	return 10 * math.Log10(high/low+1e-30)
}

func (m *narrowbandMeter) narrow() bool { return m.highBandDB() < narrowbandDB }

// fft transforms re+i·im in place (radix 2; len a power of two).
func fft(re, im []float64) {
	n := len(re)
	for i, j := 1, 0; i < n; i++ {
		bit := n >> 1
		for ; j&bit != 0; bit >>= 1 {
			j ^= bit
		}
		j |= bit
		if i < j {
			re[i], re[j] = re[j], re[i]
			im[i], im[j] = im[j], im[i]
		}
	}
	for size := 2; size <= n; size <<= 1 {
		step := -2 * math.Pi / float64(size)
		for start := 0; start < n; start += size {
			for k := 0; k < size/2; k++ {
				c, s := math.Cos(step*float64(k)), math.Sin(step*float64(k))
				a, b := start+k, start+k+size/2
				tr := re[b]*c - im[b]*s
				ti := re[b]*s + im[b]*c
				re[b], im[b] = re[a]-tr, im[a]-ti
				re[a], im[a] = re[a]+tr, im[a]+ti
			}
		}
	}
}

// narrowbandDB: measured on real recordings, 16 kHz ones (a 1961 broadcast,
// an audiobook, a phone prompt) have -30 to +7 dB from 5 to 6.5 kHz
// against 3 to 3.8 kHz; 8 kHz ones resampled to 16 kHz by ffmpeg (codecs,
// radio, telephone) -56 to -73 dB: the resampler's leakage.
const narrowbandDB = -45
