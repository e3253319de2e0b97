package testvideo

import (
	"math"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/realmedia"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// A mix puts its noise where it was asked and its pauses where the clean speech is silent:
// measured against itself, the source has the asked SNR (the pauses hold only noise, the
// speech is 0.3 dB over its noise-free level at 30 dB), no pause changes, nothing is cut and
// the correlation is the same before and after.
func TestMixSpeechMeasuresItsOwnNoise(t *testing.T) {
	toolexectest.RequireTools(t, "ffmpeg", "ffprobe")
	for _, snr := range []float64{20, 30} {
		s, err := MixSpeech(t.Context(), t.TempDir(), "jfk", SpeechMix{Voices: []string{realmedia.Path(t, "speech/jfk.wav")}, Gap: 0.8,
			Noise: NoisePink, SpeechDB: -26, SNRDB: snr, Rate: 16000})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Pauses) < 2 || len(s.Speech) == 0 {
			t.Fatalf("pauses %v, %d speech spans: want the two gaps at least", s.Pauses, len(s.Speech))
		}
		f, err := MeasureVoice(t.Context(), s, s.Path)
		if err != nil {
			t.Fatal(err)
		}
		// The speech frames are the loud ones (within 20 dB of the active level), so their RMS
		// is a little over the active level.
		if f.SNRBefore < snr || f.SNRBefore > snr+6 {
			t.Errorf("SNR %.1f dB, want %.0f to %.0f", f.SNRBefore, snr, snr+6)
		}
		if f.SNRAfter != f.SNRBefore || f.WorstPauseDB != 0 || f.SpeechCut != 0 || math.Abs(f.CorrAfter-f.CorrBefore) > 1e-9 {
			t.Errorf("the source against itself: %+v", f)
		}
	}
}
