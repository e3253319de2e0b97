package media

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// Voice enhancement (RenderOptions.Voice): the clip's speech goes through
//
//	highpass=f=80          rumble, handling noise and hum below the voice
//	afftdn                 FFT denoise, its noise floor set from the clip's quietest 0.2 s
//	deesser                softens sibilants the gain would make harsh
//	acompressor            evens out loud and quiet words (its threshold under the loud ones)
//	volume                 one gain, to VoiceLUFS integrated
//	sidechaingate          closes the pauses, keyed by the source's voice band from 60 ms
//	                       ahead to 150 ms behind (it opens before a word, holds over gaps)
//	aresample, alimiter    at 48 kHz, keeps the true peak at or below VoicePeakDBTP
//
// ffmpeg runs over the clip's audio alone measure it first: the levels of its 50 ms frames
// (the noise floor, the compressor's threshold, and where the gate opens: halfway between the
// noise and the loud speech in the voice band), its loudness through the compressor (the
// gain), and then the whole chain encoded as the export is (correcting the gain and the
// limiter's ceiling by what the limiter took and the encoder added). A single linear gain
// (not loudnorm's dynamic mode, which lifts the pauses back up) reaches the target.
//
// Why the gate: afftdn takes off about what its reduction says on steady noise, and much less
// on babble or radio noise, while the gain to -14 LUFS is 10 to 40 dB. Without the gate, the
// pauses of real voices came out 3 to 4 dB louder than in the source under pink noise 30 dB
// down, 13 to 14 dB under babble, up to 11 dB in real HF radio and 19 dB for a quiet source
// (bench section "voice", which also measures anlmdn, afftdn tracking the noise and afftdn
// with a learned noise profile, each with and without the gate). The learned profile
// (sample_noise over the clip's quietest 0.4 s) did better on babble and the same elsewhere,
// but it is not the default: it needs the stretch's time in the chain's input, which cuts
// (RenderOptions.Keep) and cross-fades move, and afftdn would learn a word for noise.
const (
	VoiceLUFS     = -14.0 // integrated loudness target, the social platforms' norm
	VoicePeakDBTP = -1.0  // true peak ceiling
	// voiceLimit is alimiter's sample-peak ceiling (-2.5 dBFS) to start from: the AAC encoder
	// adds about a dB to the peaks of most speech (more to dense noisy sound, which the
	// measured check of the encoded result then takes off).
	voiceLimit = 0.75
	// voiceReduceDB is how far afftdn pulls the noise down.
	voiceReduceDB = 30
	// voiceFloorHeadroomDB: the noise floor handed to afftdn is at most this far under the
	// clip's average level, so a clip without pauses does not have its speech taken for noise.
	voiceFloorHeadroomDB = 10
	// voiceFloorAboveTroughDB: how far above the quietest 0.2 s of the clip afftdn's noise
	// floor is set (measured on festival speech with white noise: +3 dB takes 10 dB of the
	// noise off, +6 dB 28 dB, with the speech's loudness within 0.2 LU).
	voiceFloorAboveTroughDB = 6
	// voiceMaxGainDB bounds the gain (a near-silent clip is not blown up into hiss; a
	// speaker at -45 dBFS still reaches the target).
	voiceMaxGainDB = 40
	// voiceLoudnessToleranceLU: a miss of the target this small is not measured again.
	voiceLoudnessToleranceLU = 0.4
	// voiceBand is the band the gate listens to: where speech has its energy and hum, rumble
	// and hiss have little.
	voiceBand = "highpass=f=250,lowpass=f=3500"
	// voiceLookaheadSec: the gate hears the sound this much before it passes; voiceHoldSec:
	// and this much after.
	voiceLookaheadSec = 0.06
	voiceHoldSec      = 0.15
	// voicePauseBelowDB: the pauses come out at least this far under their level in the
	// source, whatever the gain (the gate's depth is the gain plus this).
	voicePauseBelowDB = 10
	// voiceMinDepthDB and voiceMaxDepthDB bound the gate's depth.
	voiceMinDepthDB, voiceMaxDepthDB = 20, 60
)

// VoiceVariant picks the parts of the enhancement chain; DefaultVoice is what RenderOptions.Voice
// uses, the others are the candidates the bench compares it with.
type VoiceVariant struct {
	// Denoise is VoiceDenoiseTrough, VoiceDenoiseTrack, VoiceDenoiseProfile or
	// VoiceDenoiseNLM.
	Denoise string
	// Gate closes the pauses.
	Gate bool
	// Before is the chain as it was before the gate (issue 26), whatever the rest says.
	Before bool
}

const (
	// VoiceDenoiseTrough: afftdn, its floor 6 dB over the quietest 0.2 s (the chain before
	// issue 26).
	VoiceDenoiseTrough = "trough"
	// VoiceDenoiseTrack: afftdn, its floor at the level of the pauses, tracking the noise.
	VoiceDenoiseTrack = "track"
	// VoiceDenoiseProfile: afftdn with the noise profile learned (sample_noise) over the
	// clip's quietest 0.4 s.
	VoiceDenoiseProfile = "profile"
	// VoiceDenoiseNLM: anlmdn, non-local means.
	VoiceDenoiseNLM = "nlm"
)

// DefaultVoice is the chain RenderOptions.Voice applies.
var DefaultVoice = VoiceVariant{Denoise: VoiceDenoiseTrough, Gate: true}

// VoiceBefore is the chain as it was before the gate (the bench's baseline).
var VoiceBefore = VoiceVariant{Denoise: VoiceDenoiseTrough, Before: true}

var (
	troughRe = regexp.MustCompile(`RMS trough dB:\s*(-?[0-9.]+|-inf)`)
	levelRe  = regexp.MustCompile(`RMS level dB:\s*(-?[0-9.]+|-inf)`)
	loudRe   = regexp.MustCompile(`(?s)Integrated loudness:\s*I:\s*(-?[0-9.]+) LUFS`)
	// truePeakRe reads ebur128's summary: "True peak:" then "Peak: x dBFS".
	truePeakRe = regexp.MustCompile(`(?s)True peak:\s*Peak:\s*(-?[0-9.]+|-inf) dBFS`)
)

// voiceChain measures the audio of src from start for dur seconds and returns the filter
// chain that enhances it (see above).
func voiceChain(ctx context.Context, src string, info *ProbeResult, start, dur float64) (string, error) {
	return VoiceChain(ctx, src, info, start, dur, DefaultVoice)
}

// VoiceChain is the enhancement chain of v for the audio of src from start for dur seconds:
// one filtergraph with one input and one output.
func VoiceChain(ctx context.Context, src string, info *ProbeResult, start, dur float64, v VoiceVariant) (string, error) {
	if v.Before {
		return voiceChainBefore(ctx, src, info, start, dur)
	}
	lv, err := measureVoiceLevels(ctx, src, info, start, dur)
	if err != nil {
		return "", err
	}
	denoise, latency, err := voiceDenoiser(v.Denoise, lv)
	if err != nil {
		return "", err
	}
	// The denoiser's delay is taken off, so the sound stays with the picture and the gate's
	// key (the source as it is) lines up with what it gates.
	pre := fmt.Sprintf("highpass=f=80,%s,atrim=start=%.4f,asetpts=PTS-STARTPTS,deesser=i=0.4,"+
		"acompressor=threshold=%.1fdB:ratio=2.5:attack=5:release=120", denoise, latency, min(0, lv.loud-voiceCompressUnderLoudDB))
	loud, err := measureAudio(ctx, src, info, start, dur, pre+",ebur128")
	if err != nil {
		return "", err
	}
	gain := 0.0
	if i := lastDB(loudRe, loud, math.Inf(-1)); i > -70 {
		gain = min(voiceMaxGainDB, VoiceLUFS-i)
	}
	chain := voiceLevelChain(pre, v.Gate, lv)
	gain, ceiling, err := checkVoiceLevel(ctx, src, info, start, dur, chain, gain)
	if err != nil {
		return "", err
	}
	return chain(gain, ceiling), nil
}

// voiceDenoiser is the denoising filter of the named kind, set from the
// clip's levels, and the delay it adds, in seconds.
func voiceDenoiser(kind string, lv voiceLevels) (string, float64, error) {
	switch kind {
	case VoiceDenoiseTrough:
		// The trough is the quietest window; afftdn takes noise up to a few dB above the floor
		// it is given for noise, so the floor handed to it sits above the trough.
		floor := min(-20, max(-80, min(lv.trough+voiceFloorAboveTroughDB, lv.level-voiceFloorHeadroomDB)))
		return fmt.Sprintf("afftdn=nr=%d:nf=%.1f", voiceReduceDB, floor), afftdnLatencySec, nil
	case VoiceDenoiseTrack:
		floor := min(-20, max(-80, min(lv.pause+voiceFloorAboveTroughDB, lv.level-voiceFloorHeadroomDB)))
		return fmt.Sprintf("afftdn=nr=%d:nf=%.1f:tn=1", voiceReduceDB, floor), afftdnLatencySec, nil
	case VoiceDenoiseProfile:
		// afftdn learns the noise's spectrum over the clip's quietest stretch (clip time:
		// right where the chain's input starts with the measured stretch, as without cuts).
		floor := min(-20, max(-80, min(lv.trough+voiceFloorAboveTroughDB, lv.level-voiceFloorHeadroomDB)))
		return fmt.Sprintf("asendcmd=c='%.2f afftdn sn start;%.2f afftdn sn stop',afftdn=nr=%d:nf=%.1f",
			lv.quietAt, lv.quietAt+voiceProfileSec, voiceReduceDB, floor), afftdnLatencySec, nil
	case VoiceDenoiseNLM:
		return "anlmdn=s=0.0001", anlmdnLatencySec, nil
	default:
		return "", 0, fmt.Errorf("voice: unknown denoiser %q", kind)
	}
}

// voiceLevelChain is the chain after pre for a gain and a limiter ceiling:
// the gain, the gate on the pauses when gate is set, and the limiter.
func voiceLevelChain(pre string, gate bool, lv voiceLevels) func(gain, ceiling float64) string {
	return func(gain, ceiling float64) string {
		// The limiter works at 48 kHz, where the sample peaks it holds are the true peaks
		// (an 8 kHz source's peaks between samples came out 3 dB over them).
		limit := fmt.Sprintf("aresample=48000,alimiter=limit=%.3f:level=false:attack=5:release=50:latency=1", ceiling)
		if !gate {
			return fmt.Sprintf("%s,volume=%.2fdB,%s", pre, gain, limit)
		}
		// The depth is the gain and then some, so no pause comes out louder than it went in.
		depth := min(voiceMaxDepthDB, max(voiceMinDepthDB, gain+voicePauseBelowDB))
		return "asplit=2[vm][vk];" + gateKey("[vk]") + fmt.Sprintf("[vm]%s,volume=%.2fdB[vg];"+
			"[vg][vkey]sidechaingate=threshold=%.3e:range=%.3e:ratio=%g:knee=%g:attack=%g:release=%g:detection=rms:level_sc=%.4f,%s",
			pre, gain, dbToAmp(lv.gateThreshold), dbToAmp(-depth),
			voiceGateRatio, voiceGateKnee, voiceGateAttackMS, voiceGateReleaseMS, 1/math.Sqrt(voiceKeyTaps), limit)
	}
}

// checkVoiceLevel measures what ships, from gain and the default ceiling
// on, and returns the gain and ceiling to keep. What ships is measured: the
// whole chain, encoded as the export is. The limiter takes loudness off
// peaky speech (up to 2 LU on 8 kHz voices) and the AAC encoder adds to the
// peaks of dense, noisy sound (up to 3 dB on HF radio at 128 kb/s): the gain
// and the limiter's ceiling are corrected by what they missed, the gain by
// the loudness the last corrections actually bought (under hard limiting a
// dB of gain buys a fraction of one). The chain kept is the measured one
// nearest the target whose peak passed.
func checkVoiceLevel(ctx context.Context, src string, info *ProbeResult, start, dur float64, chain func(gain, ceiling float64) string, gain float64) (float64, float64, error) {
	ceiling, first := voiceLimit, gain
	var best *voiceTrial
	slope, prev := 1.0, voiceTrial{lufs: math.NaN()}
	for range voiceCheckPasses {
		lufs, peak, err := measureEncoded(ctx, src, info, start, dur, chain(gain, ceiling))
		if err != nil {
			return 0, 0, err
		}
		if lufs <= -70 {
			break // silence: nothing to level
		}
		t := voiceTrial{gain, ceiling, lufs, peak}
		peakOK := peak <= VoicePeakDBTP-voicePeakMarginDB
		if peakOK && (best == nil || math.Abs(lufs-VoiceLUFS) < math.Abs(best.lufs-VoiceLUFS)) {
			best = &t
		}
		if peakOK && math.Abs(VoiceLUFS-lufs) < voiceLoudnessToleranceLU {
			break
		}
		if !math.IsNaN(prev.lufs) && gain != prev.gain {
			slope = min(1, max(0.2, (lufs-prev.lufs)/(gain-prev.gain)))
		}
		prev = t
		if !peakOK {
			ceiling *= dbToAmp(VoicePeakDBTP - 2*voicePeakMarginDB - peak)
		}
		gain = min(voiceMaxGainDB, first+voiceMaxExtraGainDB, gain+(VoiceLUFS-lufs)/slope)
		if peakOK && gain == t.gain {
			break // at the bound: measuring again gives the same
		}
	}
	if best != nil {
		gain, ceiling = best.gain, best.ceiling
	}
	return gain, ceiling, nil
}

// voiceTrial is one measured setting of the chain's gain and limiter.
type voiceTrial struct{ gain, ceiling, lufs, peak float64 }

const (
	// voiceFrameSec is the length of the frames the clip's levels are measured over;
	// voiceProfileSec how long a stretch afftdn learns the noise from.
	voiceFrameSec   = 0.05
	voiceProfileSec = 0.4
	// voiceCompressUnderLoudDB: the compressor's threshold is this far under the clip's loud
	// words (the 95th percentile of its 50 ms levels), wherever the source's level is (a fixed
	// -24 dBFS never touched a quiet source, and the limiter flattened its peaks instead).
	voiceCompressUnderLoudDB = 4
	// voiceCheckPasses bounds the runs that measure the encoded result.
	voiceCheckPasses = 4
	// voiceMaxExtraGainDB bounds what the corrections add to the gain measured before the
	// compressor and the limiter: past it, the limiter would flatten the words.
	voiceMaxExtraGainDB = 6
	// voicePeakMarginDB: the encoded true peak is held this far under VoicePeakDBTP (the
	// export's encoder does not give the same peaks twice to the hundredth of a dB).
	voicePeakMarginDB = 0.3
	// voiceCheckBitrate is the export's AAC bitrate (RenderClip).
	voiceCheckBitrate = "128k"
)

// measureEncoded runs af over the clip's audio, encodes the result as the export's AAC and
// returns the encoded sound's integrated loudness (LUFS) and true peak (dBTP).
func measureEncoded(ctx context.Context, src string, info *ProbeResult, start, dur float64, af string) (lufs, peak float64, err error) {
	enc := toolexec.Command(ctx, "ffmpeg", "-nostdin", "-hide_banner", "-nostats", "-loglevel", "error",
		"-ss", strconv.FormatFloat(start, 'f', 3, 64), "-t", strconv.FormatFloat(dur, 'f', 3, 64),
		"-i", toolexec.LocalURL(src), "-map", "0:"+strconv.Itoa(info.AudioStream), "-af", af,
		"-c:a", "aac", "-b:a", voiceCheckBitrate, "-f", "adts", "-")
	dec := toolexec.Command(ctx, "ffmpeg", "-nostdin", "-hide_banner", "-nostats", "-loglevel", "info",
		"-f", "aac", "-i", "-", "-af", "ebur128=peak=true", "-f", "null", "-")
	pipe, err := enc.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	dec.Stdin = pipe
	var encErr toolexec.Tail
	var out bytes.Buffer
	enc.Stderr, dec.Stderr = &encErr, &out
	if err := enc.Start(); err != nil {
		return 0, 0, fmt.Errorf("voice: measure: %w", err)
	}
	decErr := dec.Run()
	if err := enc.Wait(); err != nil {
		if ctx.Err() != nil {
			return 0, 0, fmt.Errorf("voice: measure: %w", ctx.Err())
		}
		return 0, 0, fmt.Errorf("voice: measure: %w: %s", err, encErr.String())
	}
	if decErr != nil {
		return 0, 0, fmt.Errorf("voice: measure: %w: %s", decErr, lastLines(out.String(), 4))
	}
	return lastDB(loudRe, out.String(), math.Inf(-1)), lastDB(truePeakRe, out.String(), math.Inf(-1)), nil
}

// voiceKeyTaps is how many copies of the source's voice band make the gate's key.
const voiceKeyTaps = 6

// gateKey is the graph from in to [vkey], the gate's key: the source's voice band from the
// lookahead ahead of the sound to the hold behind it, as voiceKeyTaps copies spaced evenly and
// added up. The gate opens before a word starts and stays open over the short gaps inside
// words and phrases, then closes fast (agate has neither lookahead nor hold). Noise in the
// copies adds up in power, which the gate's level_sc takes off again.
func gateKey(in string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%shighpass=f=80,%s,atrim=start=%.3f,asetpts=PTS-STARTPTS,apad=pad_dur=%.3f,asplit=%d", in, voiceBand, voiceLookaheadSec, voiceLookaheadSec, voiceKeyTaps)
	for i := range voiceKeyTaps {
		fmt.Fprintf(&b, "[vt%d]", i)
	}
	b.WriteString(";")
	step := (voiceLookaheadSec + voiceHoldSec) / (voiceKeyTaps - 1)
	for i := 1; i < voiceKeyTaps; i++ {
		fmt.Fprintf(&b, "[vt%d]adelay=delays=%.0f:all=1[vd%d];", i, 1000*step*float64(i), i)
	}
	b.WriteString("[vt0]")
	for i := 1; i < voiceKeyTaps; i++ {
		fmt.Fprintf(&b, "[vd%d]", i)
	}
	fmt.Fprintf(&b, "amix=inputs=%d:duration=longest:normalize=0[vkey];", voiceKeyTaps)
	return b.String()
}

const (
	// afftdnLatencySec and anlmdnLatencySec: how late the denoisers' output is (measured with
	// an impulse at 8 to 48 kHz: 25 ms for afftdn, patch plus research for anlmdn).
	afftdnLatencySec = 0.025
	anlmdnLatencySec = 0.008
	// The gate: a soft downward expander (3:1 under the threshold, so a quiet syllable is
	// turned down, not cut), fast both ways: the key's lookahead and hold keep the words in.
	voiceGateRatio     = 3.0
	voiceGateKnee      = 4.0
	voiceGateAttackMS  = 5.0
	voiceGateReleaseMS = 30.0
)

// voiceChainBefore is the chain as it was before the gate, kept for the bench's baseline.
func voiceChainBefore(ctx context.Context, src string, info *ProbeResult, start, dur float64) (string, error) {
	stats, err := measureAudio(ctx, src, info, start, dur, "highpass=f=80,astats=length=0.2:measure_perchannel=none:measure_overall=RMS_trough+RMS_level")
	if err != nil {
		return "", err
	}
	level := lastDB(levelRe, stats, -90)
	floor := lastDB(troughRe, stats, -90) + voiceFloorAboveTroughDB
	floor = min(-20, max(-80, min(floor, level-voiceFloorHeadroomDB)))
	pre := fmt.Sprintf("highpass=f=80,afftdn=nr=%d:nf=%.1f,deesser=i=0.4,acompressor=threshold=-24dB:ratio=2.5:attack=5:release=120", voiceReduceDB, floor)
	loud, err := measureAudio(ctx, src, info, start, dur, pre+",ebur128")
	if err != nil {
		return "", err
	}
	gain := 0.0
	if i := lastDB(loudRe, loud, math.Inf(-1)); i > -70 {
		gain = min(voiceMaxGainDB, VoiceLUFS-i)
	}
	return pre + fmt.Sprintf(",volume=%.2fdB,alimiter=limit=%.2f:level=false:attack=5:release=50", gain, voiceLimit), nil
}

func dbToAmp(db float64) float64 { return math.Pow(10, db/20) }

// voiceLevels are the levels of a clip's sound that the chain is set from (dBFS).
type voiceLevels struct {
	trough, level float64 // the quietest 0.2 s and the average, full band (over 80 Hz)
	loud          float64 // the loud words: the 95th percentile of the frames, full band
	quietAt       float64 // where the quietest voiceProfileSec start, seconds into the clip
	pause         float64 // the pauses' level, full band
	gateThreshold float64 // where the gate opens, on the voice band's level
}

// measureVoiceLevels decodes the clip's sound (mono, 16 kHz) and reads the levels of its 50 ms
// frames, full band and in the voice band.
func measureVoiceLevels(ctx context.Context, src string, info *ProbeResult, start, dur float64) (voiceLevels, error) {
	args := []string{"-nostdin", "-hide_banner", "-nostats", "-loglevel", "error",
		"-ss", strconv.FormatFloat(start, 'f', 3, 64), "-t", strconv.FormatFloat(dur, 'f', 3, 64),
		"-i", toolexec.LocalURL(src), "-map", "0:" + strconv.Itoa(info.AudioStream),
		"-af", "aformat=channel_layouts=mono,aresample=16000,highpass=f=80,asplit=2[full][band];[band]" + voiceBand + "[vb];[full][vb]join=inputs=2:channel_layout=stereo",
		"-f", "s16le", "-"}
	cmd := toolexec.Command(ctx, "ffmpeg", args...)
	var stderr toolexec.Tail
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return voiceLevels{}, err
	}
	if err := cmd.Start(); err != nil {
		return voiceLevels{}, fmt.Errorf("voice: measure: %w", err)
	}
	const frame = int(voiceFrameSec * 16000)
	var full, band []float64
	buf := make([]byte, 4*frame)
	r := bufio.NewReaderSize(out, 1<<16)
	for {
		if _, err := io.ReadFull(r, buf); err != nil {
			break
		}
		var ef, eb float64
		for i := 0; i < frame; i++ {
			f := float64(int16(binary.LittleEndian.Uint16(buf[4*i:]))) / 32768
			b := float64(int16(binary.LittleEndian.Uint16(buf[4*i+2:]))) / 32768
			ef += f * f
			eb += b * b
		}
		full = append(full, powerDB(ef/float64(frame)))
		band = append(band, powerDB(eb/float64(frame)))
	}
	_, _ = io.Copy(io.Discard, r)
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return voiceLevels{}, fmt.Errorf("voice: measure: %w", ctx.Err())
		}
		return voiceLevels{}, fmt.Errorf("voice: measure: %w: %s", err, stderr.String())
	}
	return levelsOf(full, band), nil
}

// levelsOf sets the chain's levels from the 50 ms frame levels of the sound, full band and in
// the voice band.
func levelsOf(full, band []float64) voiceLevels {
	if len(full) == 0 {
		return voiceLevels{trough: -90, level: -90, pause: -90, gateThreshold: -90}
	}
	var lv voiceLevels
	var e float64
	for _, v := range full {
		e += math.Pow(10, v/10)
	}
	lv.level = powerDB(e / float64(len(full)))
	// The trough: the quietest 0.2 s (four frames).
	lv.trough = math.Inf(1)
	for i := 0; i+4 <= len(full); i++ {
		lv.trough = min(lv.trough, powerDB((math.Pow(10, full[i]/10)+math.Pow(10, full[i+1]/10)+math.Pow(10, full[i+2]/10)+math.Pow(10, full[i+3]/10))/4))
	}
	if math.IsInf(lv.trough, 1) {
		lv.trough = lv.level
	}
	const win = int(voiceProfileSec / voiceFrameSec)
	best := math.Inf(1)
	for i := 0; i+win <= len(full); i++ {
		var e float64
		for _, v := range full[i : i+win] {
			e += math.Pow(10, v/10)
		}
		if e < best {
			best, lv.quietAt = e, float64(i)*voiceFrameSec
		}
	}
	lv.pause = percentile(full, 0.1)
	lv.loud = percentile(full, 0.95)
	noise, voice := percentile(band, 0.1), percentile(band, 0.95)
	// Halfway (in dB) between the noise and the loud speech: over most of the noise, under
	// most of the words. Never close to the speech itself: where the noise is nearly as loud
	// as the voice there are no pauses to tell apart and the gate stays open.
	lv.gateThreshold = min(voice-voiceGateUnderVoiceDB, max(noise+voiceGateOverNoiseDB, noise+voiceGateShare*(voice-noise)))
	return lv
}

const (
	voiceGateOverNoiseDB  = 6
	voiceGateShare        = 0.5
	voiceGateUnderVoiceDB = 15
)

func percentile(v []float64, p float64) float64 {
	s := slices.Sorted(slices.Values(v))
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func powerDB(p float64) float64 {
	if p <= 1e-15 {
		return -150
	}
	return 10 * math.Log10(p)
}

// measureAudio runs the audio filter af over the clip's audio and returns ffmpeg's log,
// where astats and ebur128 print their summaries.
func measureAudio(ctx context.Context, src string, info *ProbeResult, start, dur float64, af string) (string, error) {
	args := []string{"-nostdin", "-hide_banner", "-nostats", "-loglevel", "info",
		"-ss", strconv.FormatFloat(start, 'f', 3, 64), "-t", strconv.FormatFloat(dur, 'f', 3, 64),
		"-i", toolexec.LocalURL(src), "-map", "0:" + strconv.Itoa(info.AudioStream), "-af", af, "-f", "null", "-"}
	cmd := toolexec.Command(ctx, "ffmpeg", args...)
	var out bytes.Buffer
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("voice: measure: %w", ctx.Err())
		}
		return "", fmt.Errorf("voice: measure: %w: %s", err, lastLines(out.String(), 4))
	}
	return out.String(), nil
}

// lastDB is the value of re's last match in log, def when there is none or it is -inf.
func lastDB(re *regexp.Regexp, log string, def float64) float64 {
	ms := re.FindAllStringSubmatch(log, -1)
	if len(ms) == 0 {
		return def
	}
	v, err := strconv.ParseFloat(ms[len(ms)-1][1], 64)
	if err != nil || math.IsInf(v, 0) {
		return def
	}
	return v
}

func lastLines(s string, n int) string {
	lines := bytes.Split(bytes.TrimSpace([]byte(s)), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("; ")))
}

// voiceFor is the enhancement chain of the clip starting at start for dur seconds, "" when
// opts does not ask for it or the source has no sound.
func voiceFor(ctx context.Context, src string, info *ProbeResult, start, dur float64, opts RenderOptions) (string, error) {
	if !opts.Voice || !info.HasAudio {
		return "", nil
	}
	return voiceChain(ctx, src, info, start, dur)
}

// soundGraph is the clip's sound from label in (clip time as its pieces play back to back):
// cross-faded at the joins, enhanced by the voice chain when there is one, and split for the
// export and the preview. It returns the graph and the two labels.
func soundGraph(in string, joins []Join, voice string) (string, [2]string) {
	g, label := transitionAudio(in, joins)
	chain := label
	if voice != "" {
		chain += voice + ","
	}
	return g + chain + "asplit=2[ae][ap];", [2]string{"[ae]", "[ap]"}
}
