package testvideo

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// Noisy speech for the voice chain: real voices with noise mixed in (where the clean speech is
// known, so are its pauses) or a recording that came noisy, and the figures the chain is
// judged by.

// NoisySpeech is a speech source with its speech and its pauses marked.
type NoisySpeech struct {
	Path string // the source: a float WAV
	// Clean is the speech without the added noise, same rate, length and gain ("" for a
	// recording that came noisy).
	Clean    string
	Rate     int
	Channels int
	// Speech is where the voice is at full strength, Pauses where it is silent; for a mixed
	// source both come from the clean speech, for a recording from its own levels.
	Speech, Pauses []Span
}

// Noise kinds for SpeechMix.Noise.
const (
	NoisePink   = "pink"
	NoiseWhite  = "white"
	NoiseBabble = "babble" // the voices of SpeechMix.Babble, mixed low
)

// SpeechMix says how to compose a noisy source.
type SpeechMix struct {
	Voices []string // speech files, played one after the other with Gap seconds between
	Gap    float64
	// Noise is NoisePink, NoiseWhite or NoiseBabble; Babble the voices mixed into babble.
	Noise  string
	Babble []string
	// SpeechDB is the active level of the speech (dBFS RMS of its voiced frames), SNRDB how far
	// under it the noise's RMS is.
	SpeechDB, SNRDB float64
	Rate, Channels  int
	Seed            int
}

// frameSec is the length of the frames levels are measured over.
const frameSec = 0.02

// MixSpeech composes the source m describes in dir (name.wav, name.clean.wav).
func MixSpeech(ctx context.Context, dir, name string, m SpeechMix) (*NoisySpeech, error) {
	if m.Rate == 0 || len(m.Voices) == 0 {
		return nil, errors.New("testvideo: SpeechMix needs voices and a rate")
	}
	m.Channels = max(1, m.Channels)
	gap := make([]float64, int(m.Gap*float64(m.Rate)))
	speech := slices.Clone(gap)
	for _, v := range m.Voices {
		pcm, err := ReadPCM(ctx, v, m.Rate)
		if err != nil {
			return nil, err
		}
		speech = append(append(speech, pcm...), gap...)
	}
	scale(speech, m.SpeechDB-ActiveLevel(speech, m.Rate))
	n := len(speech)
	clean := make([][]float64, m.Channels)
	noisy := make([][]float64, m.Channels)
	for c := range m.Channels {
		noise, err := makeNoise(ctx, m, n, m.Seed+c)
		if err != nil {
			return nil, err
		}
		scale(noise, m.SpeechDB-m.SNRDB-rmsDB(noise))
		clean[c] = speech
		noisy[c] = make([]float64, n)
		for i := range n {
			noisy[c][i] = speech[i] + noise[i]
		}
	}
	s := &NoisySpeech{Path: filepath.Join(dir, name+".wav"), Clean: filepath.Join(dir, name+".clean.wav"), Rate: m.Rate, Channels: m.Channels}
	if err := WriteWAV(s.Path, m.Rate, noisy); err != nil {
		return nil, err
	}
	if err := WriteWAV(s.Clean, m.Rate, clean); err != nil {
		return nil, err
	}
	s.Speech, s.Pauses = cleanSpans(speech, m.Rate)
	return s, nil
}

// makeNoise is n samples of m's noise at m.Rate, of any level.
func makeNoise(ctx context.Context, m SpeechMix, n, seed int) ([]float64, error) {
	switch m.Noise {
	case NoisePink, NoiseWhite:
		src := fmt.Sprintf("anoisesrc=r=%d:color=%s:amplitude=0.5:seed=%d:d=%.3f", m.Rate, m.Noise, seed+1, float64(n)/float64(m.Rate)+0.1)
		pcm, err := ffmpegPCM(ctx, m.Rate, "-f", "lavfi", "-i", src)
		if err != nil {
			return nil, err
		}
		if len(pcm) < n {
			return nil, fmt.Errorf("testvideo: anoisesrc gave %d samples, want %d", len(pcm), n)
		}
		return pcm[:n], nil
	case NoiseBabble:
		if len(m.Babble) == 0 {
			return nil, errors.New("testvideo: babble needs voices")
		}
		noise := make([]float64, n)
		for k, v := range m.Babble {
			pcm, err := ReadPCM(ctx, v, m.Rate)
			if err != nil {
				return nil, err
			}
			// Each talker at the same active level, looped from its own offset, so the
			// voices overlap as in a crowd.
			scale(pcm, -20-ActiveLevel(pcm, m.Rate))
			off := (k*7919 + seed*104729) % len(pcm)
			for i := range n {
				noise[i] += pcm[(off+i)%len(pcm)]
			}
		}
		return noise, nil
	}
	return nil, fmt.Errorf("testvideo: unknown noise %q", m.Noise)
}

// RecordedSpeech marks the speech and the pauses of a recording that came noisy (from start
// for dur seconds), from its own levels: the pauses are its quietest stretches, the speech
// its loudest frames. The source written to dir is that stretch, as it is.
func RecordedSpeech(ctx context.Context, dir, name, path string, start, dur float64) (*NoisySpeech, error) {
	rate, channels, err := probeAudio(ctx, path)
	if err != nil {
		return nil, err
	}
	pcm, err := ffmpegPCM(ctx, rate, "-ss", ff(start), "-t", ff(dur), "-i", toolexec.LocalURL(path))
	if err != nil {
		return nil, err
	}
	s := &NoisySpeech{Path: filepath.Join(dir, name+".wav"), Rate: rate, Channels: 1}
	_ = channels // the recordings are mono; the source is written mono
	if err := WriteWAV(s.Path, rate, [][]float64{pcm}); err != nil {
		return nil, err
	}
	lv := FrameLevels(pcm, rate)
	// Digital silence (a recording's lead-in) is no pause of the noise.
	sorted := slices.Sorted(slices.Values(slices.DeleteFunc(slices.Clone(lv), func(v float64) bool { return v <= -140 })))
	if len(sorted) == 0 {
		return nil, fmt.Errorf("testvideo: %s is silent", path)
	}
	floor := sorted[len(sorted)/10]
	loud := sorted[len(sorted)*95/100]
	// Pauses: at most 4 dB over the floor for 0.5 s or more (measured pauseInset inside their
	// edges, as in a mix); speech: within 10 dB of the loudest frames. A recording whose voice
	// is not 15 dB over its floor has no pause to tell apart.
	if loud-floor >= 15 {
		s.Pauses = runs(lv, func(v float64) bool { return v > -140 && v < floor+4 }, 0.5, pauseInset)
	}
	s.Speech = runs(lv, func(v float64) bool { return v > max(loud-10, floor+10) }, frameSec, 0)
	return s, nil
}

// pauseInset is how far inside a pause's edges its level is measured: a pause as a listener
// hears it, after the last word has died away (as the voice tests always measured).
const pauseInset = 0.2

// cleanSpans are the speech and the pauses of clean speech: pauses 40 dB under its active
// level for 0.5 s or more (measured pauseInset inside their edges), speech within 20 dB of it.
func cleanSpans(speech []float64, rate int) (sp, pauses []Span) {
	active := ActiveLevel(speech, rate)
	lv := FrameLevels(speech, rate)
	pauses = runs(lv, func(v float64) bool { return v < active-40 }, 0.5, pauseInset)
	sp = runs(lv, func(v float64) bool { return v > active-20 }, frameSec, 0)
	return sp, pauses
}

// runs are the stretches of frames whose level passes ok, at least minSec long, shrunk by
// inset at both ends.
func runs(lv []float64, ok func(float64) bool, minSec, inset float64) []Span {
	var out []Span
	start := -1
	for i := 0; i <= len(lv); i++ {
		if i < len(lv) && ok(lv[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			a, b := float64(start)*frameSec, float64(i)*frameSec
			if b-a >= minSec-1e-9 && b-a > 2*inset {
				out = append(out, Span{a + inset, b - inset})
			}
			start = -1
		}
	}
	return out
}

// FrameLevels are the RMS levels (dBFS) of pcm's 20 ms frames.
func FrameLevels(pcm []float64, rate int) []float64 {
	n := int(frameSec * float64(rate))
	var lv []float64
	for i := 0; i+n <= len(pcm); i += n {
		lv = append(lv, rmsDB(pcm[i:i+n]))
	}
	return lv
}

// ActiveLevel is the RMS level (dBFS) of the frames of pcm within 30 dB of its loudest: the
// level of the speech, not of the pauses between.
func ActiveLevel(pcm []float64, rate int) float64 {
	lv := FrameLevels(pcm, rate)
	top := slices.Max(lv)
	var sum float64
	var k int
	for _, v := range lv {
		if v > top-30 {
			sum += math.Pow(10, v/10)
			k++
		}
	}
	return 10 * math.Log10(sum/float64(k))
}

// VoiceFigures are what the voice chain is judged by, of a source and of its enhanced output.
type VoiceFigures struct {
	// SNRBefore and SNRAfter: the speech's RMS over the pauses' RMS, dB, in the source and
	// in the output (NaN, as WorstPauseDB, where the source has no pauses).
	SNRBefore, SNRAfter float64
	// WorstPauseDB is the largest change of a pause's level from source to output (dB; above
	// 0, a pause came out louder).
	WorstPauseDB float64
	// LUFS and TruePeak are the output's integrated loudness and true peak (ffmpeg ebur128).
	LUFS, TruePeak float64
	// CorrBefore and CorrAfter: correlation of the source and of the output with the clean
	// speech over the speech frames (NaN without a clean reference).
	CorrBefore, CorrAfter float64
	// SpeechCut is the share of the soft speech frames (under the active level) more than
	// 10 dB under where the output's overall gain puts them (the clean speech's, or the
	// source's for a recording): the gate eating syllables.
	SpeechCut float64
}

// MeasureVoice measures out, s's enhanced version.
func MeasureVoice(ctx context.Context, s *NoisySpeech, out string) (VoiceFigures, error) {
	f := VoiceFigures{CorrBefore: math.NaN(), CorrAfter: math.NaN()}
	src, err := ReadPCM(ctx, s.Path, s.Rate)
	if err != nil {
		return f, err
	}
	enh, err := ReadPCM(ctx, out, s.Rate)
	if err != nil {
		return f, err
	}
	ref := src
	if s.Clean != "" {
		if ref, err = ReadPCM(ctx, s.Clean, s.Rate); err != nil {
			return f, err
		}
	}
	enh = align(ref, enh, s.Rate)
	if len(s.Pauses) == 0 {
		f.SNRBefore, f.SNRAfter, f.WorstPauseDB = math.NaN(), math.NaN(), math.NaN()
	} else {
		f.SNRBefore = spanDB(src, s.Speech, s.Rate) - spanDB(src, s.Pauses, s.Rate)
		f.SNRAfter = spanDB(enh, s.Speech, s.Rate) - spanDB(enh, s.Pauses, s.Rate)
		f.WorstPauseDB = math.Inf(-1)
		for _, p := range s.Pauses {
			ps := []Span{p}
			f.WorstPauseDB = max(f.WorstPauseDB, spanDB(enh, ps, s.Rate)-spanDB(src, ps, s.Rate))
		}
	}
	if s.Clean != "" {
		f.CorrBefore = correlation(ref, src, s.Speech, s.Rate)
		f.CorrAfter = correlation(ref, enh, s.Speech, s.Rate)
	}
	f.SpeechCut = speechCut(ref, enh, s.Speech, s.Rate)
	f.LUFS, f.TruePeak, err = Loudness(ctx, out)
	return f, err
}

// align shifts b (an output of the chain) onto a, within 0.1 s either way, where their
// correlation is highest: a filter's latency would otherwise read as distortion.
func align(a, b []float64, rate int) []float64 {
	maxLag := rate / 10
	// The loudest second of a, where the speech is.
	win := min(rate, len(a)/2)
	best, at := math.Inf(-1), 0
	for i := 0; i+win <= len(a); i += win / 2 {
		if e := energy(a[i : i+win]); e > best {
			best, at = e, i
		}
	}
	bestLag, bestC := 0, math.Inf(-1)
	for lag := -maxLag; lag <= maxLag; lag++ {
		var c float64
		for i := at; i < at+win; i++ {
			if j := i + lag; j >= 0 && j < len(b) {
				c += a[i] * b[j]
			}
		}
		if c > bestC {
			bestC, bestLag = c, lag
		}
	}
	out := make([]float64, len(a))
	for i := range out {
		if j := i + bestLag; j >= 0 && j < len(b) {
			out[i] = b[j]
		}
	}
	return out
}

// spanDB is the RMS level (dBFS) of pcm over spans.
func spanDB(pcm []float64, spans []Span, rate int) float64 {
	var e float64
	var n int
	for _, s := range spans {
		a, b := int(s.Start*float64(rate)), min(len(pcm), int(s.End*float64(rate)))
		for i := a; i < b; i++ {
			e += pcm[i] * pcm[i]
		}
		n += max(0, b-a)
	}
	if n == 0 || e == 0 {
		return -150
	}
	return 10 * math.Log10(e/float64(n))
}

func correlation(a, b []float64, spans []Span, rate int) float64 {
	var ab, aa, bb float64
	for _, s := range spans {
		for i := int(s.Start * float64(rate)); i < min(len(a), len(b), int(s.End*float64(rate))); i++ {
			ab += a[i] * b[i]
			aa += a[i] * a[i]
			bb += b[i] * b[i]
		}
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

// speechCut is the share of ref's soft speech frames (up to 20 dB under its loud ones) that
// out has more than 10 dB under the median gain from ref to out over the speech: syllables a
// gate ate. The loudest frames are left out: a compressor turns them down on purpose.
func speechCut(ref, out []float64, spans []Span, rate int) float64 {
	n := int(frameSec * float64(rate))
	var diffs, soft []float64
	active := ActiveLevel(ref, rate)
	for _, s := range spans {
		for i := int(s.Start * float64(rate)); i+n <= min(len(ref), len(out), int(s.End*float64(rate))+1); i += n {
			r := rmsDB(ref[i : i+n])
			d := rmsDB(out[i:i+n]) - r
			diffs = append(diffs, d)
			if r < active {
				soft = append(soft, d)
			}
		}
	}
	if len(soft) == 0 {
		return 0
	}
	med := slices.Sorted(slices.Values(diffs))[len(diffs)/2]
	cut := 0
	for _, d := range soft {
		if d < med-10 {
			cut++
		}
	}
	return float64(cut) / float64(len(soft))
}

var (
	loudRe = regexp.MustCompile(`(?s)Integrated loudness:\s*I:\s*(-?[0-9.]+|-inf) LUFS`)
	peakRe = regexp.MustCompile(`(?s)True peak:\s*Peak:\s*(-?[0-9.]+|-inf) dBFS`)
)

// Loudness is file's integrated loudness (LUFS) and true peak (dBTP) by ffmpeg's ebur128.
func Loudness(ctx context.Context, file string) (lufs, peak float64, err error) {
	cmd := toolexec.Command(ctx, "ffmpeg", "-nostdin", "-hide_banner", "-nostats", "-i", toolexec.LocalURL(file), "-vn",
		"-af", "ebur128=peak=true", "-f", "null", "-")
	var out bytes.Buffer
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("testvideo: ebur128: %w", err)
	}
	return lastFloat(loudRe, out.String()), lastFloat(peakRe, out.String()), nil
}

func lastFloat(re *regexp.Regexp, s string) float64 {
	ms := re.FindAllStringSubmatch(s, -1)
	if len(ms) == 0 {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(ms[len(ms)-1][1], 64)
	if err != nil {
		return math.Inf(-1)
	}
	return v
}

// ReadPCM decodes path's sound to mono samples at rate.
func ReadPCM(ctx context.Context, path string, rate int) ([]float64, error) {
	return ffmpegPCM(ctx, rate, "-i", toolexec.LocalURL(path))
}

func ffmpegPCM(ctx context.Context, rate int, input ...string) ([]float64, error) {
	args := append([]string{"-nostdin", "-hide_banner", "-loglevel", "error"}, input...)
	args = append(args, "-vn", "-ac", "1", "-ar", strconv.Itoa(rate), "-f", "f32le", "-")
	cmd := toolexec.Command(ctx, "ffmpeg", args...)
	var out bytes.Buffer
	var stderr toolexec.Tail
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("testvideo: decode %v: %w: %s", input, err, stderr.String())
	}
	b := out.Bytes()
	pcm := make([]float64, len(b)/4)
	for i := range pcm {
		pcm[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return pcm, nil
}

func probeAudio(ctx context.Context, path string) (rate, channels int, err error) {
	cmd := toolexec.Command(ctx, "ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=sample_rate,channels",
		"-of", "csv=p=0", toolexec.LocalURL(path))
	out, err := cmd.Output()
	if err != nil {
		return 0, 0, fmt.Errorf("testvideo: ffprobe %s: %w", path, err)
	}
	if _, err := fmt.Sscanf(string(bytes.TrimSpace(out)), "%d,%d", &rate, &channels); err != nil {
		return 0, 0, fmt.Errorf("testvideo: ffprobe %s: %q: %w", path, out, err)
	}
	return rate, channels, nil
}

// WriteWAV writes channels (of equal length) as a 32-bit float WAV.
func WriteWAV(path string, rate int, channels [][]float64) error {
	nc, n := len(channels), len(channels[0])
	le := binary.LittleEndian
	b := make([]byte, 0, 44+4*nc*n)
	b = le.AppendUint32(append(b, "RIFF"...), uint32(36+4*nc*n))
	b = append(b, "WAVEfmt "...)
	b = le.AppendUint32(b, 16)
	b = le.AppendUint16(b, 3) // IEEE float
	b = le.AppendUint16(b, uint16(nc))
	b = le.AppendUint32(b, uint32(rate))
	b = le.AppendUint32(b, uint32(4*nc*rate))
	b = le.AppendUint16(b, uint16(4*nc))
	b = le.AppendUint16(b, 32)
	b = le.AppendUint32(append(b, "data"...), uint32(4*nc*n))
	for i := range n {
		for c := range nc {
			b = le.AppendUint32(b, math.Float32bits(float32(channels[c][i])))
		}
	}
	return os.WriteFile(path, b, 0o644)
}

func scale(pcm []float64, db float64) {
	g := math.Pow(10, db/20)
	for i := range pcm {
		pcm[i] *= g
	}
}

func energy(pcm []float64) float64 {
	var e float64
	for _, v := range pcm {
		e += v * v
	}
	return e
}

func rmsDB(pcm []float64) float64 {
	e := energy(pcm)
	if e == 0 {
		return -150
	}
	return 10 * math.Log10(e/float64(len(pcm)))
}

func ff(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
