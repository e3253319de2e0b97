package media

import (
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/realmedia"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// Real voices under real kinds of noise, rendered with voice enhancement as a clip: the
// speech-to-pause-noise ratio gains at least 10 dB, no pause comes out louder than it went
// in, the loudness is -14 +- 1 LUFS, the true peak at most -1 dBTP, and the gate leaves the
// words in (under 10% of the speech frames 10 dB under the clip's gain).
func TestVoiceEnhancementRemovesRealNoise(t *testing.T) {
	toolexectest.RequireTools(t, "ffmpeg", "ffprobe")
	speech := func(rel string) string { return realmedia.Path(t, "speech/"+rel) }
	for _, c := range []struct {
		name string
		make func(dir string) (*testvideo.NoisySpeech, error)
	}{
		{"jfk with pink noise 30 dB under", func(dir string) (*testvideo.NoisySpeech, error) {
			return testvideo.MixSpeech(t.Context(), dir, "pink", testvideo.SpeechMix{Voices: []string{speech("jfk.wav")}, Gap: 0.8,
				Noise: testvideo.NoisePink, SpeechDB: -30, SNRDB: 30, Rate: 16000})
		}},
		// Babble: other real voices looped over each other, 25 dB under a third, stereo 48 kHz.
		{"hello16000 with babble 25 dB under", func(dir string) (*testvideo.NoisySpeech, error) {
			return testvideo.MixSpeech(t.Context(), dir, "babble", testvideo.SpeechMix{Voices: []string{speech("hello16000.wav")}, Gap: 0.8,
				Noise: testvideo.NoiseBabble, Babble: []string{speech("codec2/mmt1.wav"), speech("codec2/david4.wav"), speech("codec2/m2400.wav"), speech("codec2/f2400.wav"), speech("codec2/all.wav")},
				SpeechDB: -20, SNRDB: 25, Rate: 48000, Channels: 2})
		}},
		// Real HF radio, noisy as recorded (8 kHz).
		{"ve9qrp, 20 s", func(dir string) (*testvideo.NoisySpeech, error) {
			return testvideo.RecordedSpeech(t.Context(), dir, "ve9qrp", speech("codec2/ve9qrp.wav"), 0, 20)
		}},
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
			src := filepath.Join(dir, "src.mp4")
			ff(t, "-f", "lavfi", "-i", "color=c=gray:s=320x240:r=25", "-i", s.Path, "-map", "0:v", "-map", "1:a", "-shortest",
				"-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "192k", "-ar", strconv.Itoa(s.Rate), src)
			info, err := Probe(t.Context(), src)
			if err != nil {
				t.Fatal(err)
			}
			export, preview := filepath.Join(dir, "c.mp4"), filepath.Join(dir, "c.preview.mp4")
			if _, err := RenderClip(t.Context(), src, Highlight{Start: 0, End: info.DurationSec}, export, preview,
				RenderOptions{Aspect: "landscape", PreviewHeight: 240, Voice: true}); err != nil {
				t.Fatal(err)
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
				t.Errorf("%.1f%% of the speech frames came out 10 dB under the rest: the gate eats words", 100*f.SpeechCut)
			}
		})
	}
}
