package media

import (
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/realmedia"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// Real voices under real kinds of noise, enhanced (one rendered as a clip, the others through
// the chain and the export's AAC): the speech-to-pause-noise ratio gains at least 10 dB, no
// pause comes out louder than it went in, the loudness is -14 +- 1 LUFS, the true peak at
// most -1 dBTP, and the gate leaves the words in (under 10% of the soft speech frames 10 dB
// under the clip's gain).
func TestVoiceEnhancementRemovesRealNoise(t *testing.T) {
	t.Parallel()
	toolexectest.RequireTools(t, "ffmpeg", "ffprobe")
	speech := func(rel string) string { return realmedia.Path(t, "speech/"+rel) }
	for _, c := range []struct {
		name string
		make func(dir string) (*testvideo.NoisySpeech, error)
		// render: through RenderClip with a picture; otherwise the chain alone and AAC as
		// the export encodes it (the picture costs most of a render's time).
		render bool
	}{
		{"jfk with pink noise 30 dB under", func(dir string) (*testvideo.NoisySpeech, error) {
			return testvideo.MixSpeech(t.Context(), dir, "pink", testvideo.SpeechMix{Voices: []string{speech("jfk.wav")}, Gap: 0.8,
				Noise: testvideo.NoisePink, SpeechDB: -30, SNRDB: 30, Rate: 16000})
		}, true},
		// Babble: other real voices looped over each other, 25 dB under a third, stereo 48 kHz.
		{"hello16000 with babble 25 dB under", func(dir string) (*testvideo.NoisySpeech, error) {
			return testvideo.MixSpeech(t.Context(), dir, "babble", testvideo.SpeechMix{Voices: []string{speech("hello16000.wav")}, Gap: 0.8,
				Noise: testvideo.NoiseBabble, Babble: []string{speech("codec2/mmt1.wav"), speech("codec2/david4.wav"), speech("codec2/m2400.wav"), speech("codec2/f2400.wav"), speech("codec2/all.wav")},
				SpeechDB: -20, SNRDB: 25, Rate: 48000, Channels: 2})
		}, false},
		// Real HF radio, noisy as recorded (8 kHz).
		{"ve9qrp, 20 s", func(dir string) (*testvideo.NoisySpeech, error) {
			return testvideo.RecordedSpeech(t.Context(), dir, "ve9qrp", speech("codec2/ve9qrp.wav"), 0, 20)
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := c.make(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Pauses) == 0 {
				t.Fatal("the source has no pauses to measure")
			}
			export := filepath.Join(dir, "c.mp4")
			if c.render {
				src := filepath.Join(dir, "src.mp4")
				ff(t, "-f", "lavfi", "-i", "color=c=gray:s=320x240:r=25", "-i", s.Path, "-map", "0:v", "-map", "1:a", "-shortest",
					"-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "192k", "-ar", strconv.Itoa(s.Rate), src)
				info, err := Probe(t.Context(), src)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := renderFast(t.Context(), src, Highlight{Start: 0, End: info.DurationSec}, export, filepath.Join(dir, "c.preview.mp4"),
					RenderOptions{Aspect: "landscape", PreviewHeight: 240, Voice: true}); err != nil {
					t.Fatal(err)
				}
			} else {
				info, err := probeAudioOnly(t, s.Path)
				if err != nil {
					t.Fatal(err)
				}
				chain, err := VoiceChain(t.Context(), s.Path, info.ProbeResult, 0, info.DurationSec, DefaultVoice)
				if err != nil {
					t.Fatal(err)
				}
				export = filepath.Join(dir, "c.m4a")
				ff(t, "-i", s.Path, "-af", chain, "-c:a", "aac", "-b:a", voiceCheckBitrate, export)
			}
			f, err := testvideo.MeasureVoice(t.Context(), s, export)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("SNR %.1f -> %.1f dB, worst pause %+.1f dB, %.1f LUFS, true peak %.1f dBTP, speech correlation %.3f -> %.3f, speech cut %.1f%%",
				f.SNRBefore, f.SNRAfter, f.WorstPauseDB, f.LUFS, f.TruePeak, f.CorrBefore, f.CorrAfter, 100*f.SpeechCut)
			if gain := f.SNRAfter - f.SNRBefore; !(gain >= 10) {
				t.Errorf("speech-to-pause-noise ratio gained %.1f dB, want at least 10", gain)
			}
			if !(f.WorstPauseDB <= 0) {
				t.Errorf("a pause came out %.1f dB louder than in the source", f.WorstPauseDB)
			}
			if !(math.Abs(f.LUFS-VoiceLUFS) <= 1) {
				t.Errorf("integrated loudness %.1f LUFS, want %.0f +- 1", f.LUFS, VoiceLUFS)
			}
			if !(f.TruePeak <= VoicePeakDBTP) {
				t.Errorf("true peak %.1f dBTP, want <= %.0f", f.TruePeak, VoicePeakDBTP)
			}
			if f.SpeechCut > 0.1 {
				t.Errorf("%.1f%% of the soft speech frames came out 10 dB under the rest: the gate eats syllables", 100*f.SpeechCut)
			}
		})
	}
}

// The gate opens halfway between the noise and the loud speech, and where the noise is nearly
// as loud as the voice (nothing to tell apart) it stays under the noise: open all the time.
func TestVoiceGateThresholdFollowsNoiseAndSpeech(t *testing.T) {
	t.Parallel()
	frames := func(noise, speech float64) []float64 {
		var lv []float64
		for i := range 200 {
			if i%4 == 0 {
				lv = append(lv, noise) // a pause every fourth frame
			} else {
				lv = append(lv, speech)
			}
		}
		return lv
	}
	for _, c := range []struct {
		noise, speech float64
		open          bool // the gate never closes
	}{
		{-70, -20, false},
		{-50, -20, false},
		{-90, -45, false}, // a quiet source
		{-28, -24, true},  // radio noise as loud as the voice
	} {
		band := frames(c.noise, c.speech)
		lv := levelsOf(band, band)
		if c.open {
			if lv.gateThreshold >= c.noise {
				t.Errorf("noise %v, speech %v: threshold %.1f, want under the noise", c.noise, c.speech, lv.gateThreshold)
			}
			continue
		}
		if lv.gateThreshold < c.noise+voiceGateOverNoiseDB || lv.gateThreshold > c.speech-voiceGateUnderVoiceDB {
			t.Errorf("noise %v, speech %v: threshold %.1f, want between %v and %v", c.noise, c.speech, lv.gateThreshold,
				c.noise+voiceGateOverNoiseDB, c.speech-voiceGateUnderVoiceDB)
		}
		if lv.quietAt != 0 || lv.loud != c.speech || lv.pause != c.noise {
			t.Errorf("noise %v, speech %v: quiet at %v, loud %v, pause %v", c.noise, c.speech, lv.quietAt, lv.loud, lv.pause)
		}
	}
}

// Whatever the format of the sound (8 kHz mono, 44.1 kHz stereo) and its level (quiet,
// loud), the chain keeps its channels and levels it: -14 +- 1 LUFS, true peak at most
// -1 dBTP after AAC, and no pause louder than in the source.
func TestVoiceChainAnyFormatAndLevel(t *testing.T) {
	t.Parallel()
	toolexectest.RequireTools(t, "ffmpeg", "ffprobe")
	c2 := func(n string) string { return realmedia.Path(t, "speech/codec2/"+n+".wav") }
	for _, c := range []struct {
		rate, channels int
		speechDB       float64
	}{
		{8000, 1, -40},
		{44100, 2, -10},
	} {
		t.Run(strconv.Itoa(c.rate)+"Hz", func(t *testing.T) {
			dir := t.TempDir()
			s, err := testvideo.MixSpeech(t.Context(), dir, "src", testvideo.SpeechMix{Voices: []string{c2("morig"), c2("forig"), c2("hts2a")}, Gap: 0.7,
				Noise: testvideo.NoisePink, SpeechDB: c.speechDB, SNRDB: 30, Rate: c.rate, Channels: c.channels})
			if err != nil {
				t.Fatal(err)
			}
			info, err := probeAudioOnly(t, s.Path)
			if err != nil {
				t.Fatal(err)
			}
			chain, err := VoiceChain(t.Context(), s.Path, info.ProbeResult, 0, info.DurationSec, DefaultVoice)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out.m4a")
			ff(t, "-i", s.Path, "-af", chain, "-c:a", "aac", "-b:a", voiceCheckBitrate, out)
			outInfo, err := probeAudioOnly(t, out)
			if err != nil {
				t.Fatal(err)
			}
			if outInfo.channels != c.channels {
				t.Errorf("%d channels out, want %d", outInfo.channels, c.channels)
			}
			f, err := testvideo.MeasureVoice(t.Context(), s, out)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("SNR %.1f -> %.1f dB, worst pause %+.1f dB, %.1f LUFS, true peak %.1f dBTP", f.SNRBefore, f.SNRAfter, f.WorstPauseDB, f.LUFS, f.TruePeak)
			if !(math.Abs(f.LUFS-VoiceLUFS) <= 1) || !(f.TruePeak <= VoicePeakDBTP) || !(f.WorstPauseDB <= 0) {
				t.Errorf("%.1f LUFS, true peak %.1f dBTP, worst pause %+.1f dB: want -14 +- 1, <= -1, <= 0", f.LUFS, f.TruePeak, f.WorstPauseDB)
			}
		})
	}
}

// audioOnly is a sound file's probe, as the chain wants it, and its channel count.
type audioOnly struct {
	*ProbeResult
	channels int
}

func probeAudioOnly(t *testing.T, path string) (audioOnly, error) {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "ffprobe", "-v", "error", "-select_streams", "a:0",
		"-show_entries", "stream=channels:format=duration", "-of", "default=nw=1:nk=1", path).Output()
	if err != nil {
		return audioOnly{}, err
	}
	var ch int
	var dur float64
	if _, err := fmt.Sscan(string(out), &ch, &dur); err != nil {
		return audioOnly{}, fmt.Errorf("ffprobe %s: %q: %w", path, out, err)
	}
	return audioOnly{&ProbeResult{DurationSec: dur, HasAudio: true, AudioStream: 0, VideoStream: -1}, ch}, nil
}

// The chain is a graph of its own (the gate's key) inside the render's: it holds with cuts
// and cross-fades around it, and the clip still comes out at the target loudness.
func TestVoiceEnhancementWithCutsAndTransitions(t *testing.T) {
	t.Parallel()
	toolexectest.RequireTools(t, "ffmpeg", "ffprobe")
	dir := t.TempDir()
	s, err := testvideo.MixSpeech(t.Context(), dir, "pink", testvideo.SpeechMix{Voices: []string{realmedia.Path(t, "speech/jfk.wav")}, Gap: 0.8,
		Noise: testvideo.NoisePink, SpeechDB: -30, SNRDB: 30, Rate: 16000})
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "src.mp4")
	ff(t, "-f", "lavfi", "-i", "color=c=gray:s=320x240:r=25", "-i", s.Path, "-map", "0:v", "-map", "1:a", "-shortest",
		"-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "192k", src)
	info, err := Probe(t.Context(), src)
	if err != nil {
		t.Fatal(err)
	}
	export := filepath.Join(dir, "c.mp4")
	if _, err := renderFast(t.Context(), src, Highlight{Start: 0, End: info.DurationSec}, export, filepath.Join(dir, "c.preview.mp4"),
		RenderOptions{Aspect: "landscape", PreviewHeight: 120, Voice: true, Keep: []Interval{{0.5, 4}, {5, 9}, {9.5, 12}},
			Transitions: Transitions{Names: []string{"fade"}}}); err != nil {
		t.Fatal(err)
	}
	lufs, peak := loudness(t, export)
	t.Logf("%.1f LUFS, true peak %.1f dBTP", lufs, peak)
	if math.Abs(lufs-VoiceLUFS) > 1 || peak > VoicePeakDBTP {
		t.Errorf("%.1f LUFS, true peak %.1f dBTP: want %.0f +- 1, <= %.0f", lufs, peak, VoiceLUFS, VoicePeakDBTP)
	}
}
