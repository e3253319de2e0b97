package media

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// Voice enhancement (RenderOptions.Voice): the clip's speech goes through
//
//	highpass=f=80          rumble, handling noise and hum below the voice
//	afftdn                 FFT denoise, its noise floor set to the one measured in the clip
//	deesser                softens sibilants the gain would make harsh
//	acompressor            evens out loud and quiet words
//	volume                 one gain, to VoiceLUFS integrated (measured after the chain above)
//	alimiter               keeps the true peak at or below VoicePeakDBTP
//
// Two short audio-only ffmpeg runs measure the clip first: its noise floor (the quietest
// 0.2 s windows) and then its loudness through the chain. A single linear gain (not
// loudnorm's dynamic mode, which lifts the pauses and their noise back up) reaches the target.
const (
	VoiceLUFS     = -14.0 // integrated loudness target, the social platforms' norm
	VoicePeakDBTP = -1.0  // true peak ceiling
	// voiceLimit is alimiter's sample-peak ceiling (-2.5 dBFS): the AAC encoder and
	// inter-sample peaks add up to about a dB, which keeps the true peak under VoicePeakDBTP.
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
	// voiceMaxGainDB bounds the gain (a near-silent clip is not blown up into hiss).
	voiceMaxGainDB = 30
)

var (
	troughRe = regexp.MustCompile(`RMS trough dB:\s*(-?[0-9.]+|-inf)`)
	levelRe  = regexp.MustCompile(`RMS level dB:\s*(-?[0-9.]+|-inf)`)
	loudRe   = regexp.MustCompile(`(?s)Integrated loudness:\s*I:\s*(-?[0-9.]+) LUFS`)
)

// voiceChain measures the audio of src from start for dur seconds and returns the filter
// chain that enhances it (see above).
func voiceChain(ctx context.Context, src string, info *ProbeResult, start, dur float64) (string, error) {
	stats, err := measureAudio(ctx, src, info, start, dur, "highpass=f=80,astats=length=0.2:measure_perchannel=none:measure_overall=RMS_trough+RMS_level")
	if err != nil {
		return "", err
	}
	level := lastDB(levelRe, stats, -90)
	// The trough is the quietest window; afftdn takes noise up to a few dB above the floor it
	// is given for noise, so the floor handed to it sits above the trough.
	floor := lastDB(troughRe, stats, -90) + voiceFloorAboveTroughDB
	floor = min(-20, max(-80, min(floor, level-voiceFloorHeadroomDB)))
	pre := fmt.Sprintf("highpass=f=80,afftdn=nr=%d:nf=%.1f,deesser=i=0.4,acompressor=threshold=-24dB:ratio=2.5:attack=5:release=120", voiceReduceDB, floor)

	loud, err := measureAudio(ctx, src, info, start, dur, pre+",ebur128")
	if err != nil {
		return "", err
	}
	gain := 0.0
	if m := loudRe.FindStringSubmatch(loud); m != nil {
		if i, err := strconv.ParseFloat(m[1], 64); err == nil && i > -70 {
			gain = min(voiceMaxGainDB, VoiceLUFS-i)
		}
	}
	return pre + fmt.Sprintf(",volume=%.2fdB,alimiter=limit=%.2f:level=false:attack=5:release=50", gain, voiceLimit), nil
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
