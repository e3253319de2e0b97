package media

import (
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe/speechtest"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// noiseAmplitude: anoisesrc's white noise is uniform in [-a, a], so its RMS is a/sqrt(3):
// 0.0173 is -40 dBFS.
const noiseAmplitude = 0.0173

// Festival speech with white noise at -40 dBFS under it, rendered with voice enhancement:
// the noise in the pauses is at least 10 dB lower, the clip's integrated loudness is within
// 1 LU of -14 LUFS and its true peak at most -1 dBTP (ffmpeg's ebur128 on the export).
func TestVoiceEnhancementCleansAndLevelsSpeech(t *testing.T) {
	t.Parallel()
	toolexectest.RequireTools(t, speechtest.Tools...)
	dir := t.TempDir()
	wav, spans := speechtest.Speech(t, dir, []string{
		"Today we are cooking a simple dinner in the kitchen.",
		"First we boil water for the pasta in a large pot.",
		"While the water heats we chop onions and garlic.",
		"The sauce needs fresh tomatoes and a little olive oil.",
	}, 1.2)
	src := filepath.Join(dir, "noisy.mp4")
	ff(t, "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-i", wav,
		"-f", "lavfi", "-i", fmt.Sprintf("anoisesrc=r=16000:color=white:amplitude=%g:seed=7", noiseAmplitude),
		"-filter_complex", "[1:a][2:a]amix=inputs=2:duration=first:normalize=0[a]",
		"-map", "0:v", "-map", "[a]", "-shortest", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "128k", src)

	info, err := Probe(t.Context(), src)
	if err != nil {
		t.Fatal(err)
	}
	h := Highlight{Start: 0, End: info.DurationSec}
	export, preview := filepath.Join(dir, "c.mp4"), filepath.Join(dir, "c.preview.mp4")
	if _, err := renderFast(t.Context(), src, h, export, preview, RenderOptions{Aspect: "landscape", PreviewHeight: 240, Voice: true}); err != nil {
		t.Fatal(err)
	}

	// The pauses between sentences, 0.2 s inside their edges.
	var before, after float64
	for i := 1; i < len(spans); i++ {
		a, b := spans[i-1].End+0.2, spans[i].Start-0.2
		before += windowRMS(t, src, a, b)
		after += windowRMS(t, export, a, b)
	}
	n := float64(len(spans) - 1)
	before, after = before/n, after/n
	loud, peak := loudness(t, export)
	srcLoud, srcPeak := loudness(t, src)
	t.Logf("source: pauses %.1f dBFS, %.1f LUFS, true peak %.1f dBTP; enhanced: pauses %.1f dBFS (%.1f dB down), %.1f LUFS, true peak %.1f dBTP",
		before, srcLoud, srcPeak, after, before-after, loud, peak)
	if before-after < 10 {
		t.Errorf("noise in the pauses went from %.1f to %.1f dBFS, want at least 10 dB down", before, after)
	}
	if math.Abs(loud-VoiceLUFS) > 1 {
		t.Errorf("integrated loudness %.1f LUFS, want %.0f +- 1", loud, VoiceLUFS)
	}
	if peak > VoicePeakDBTP {
		t.Errorf("true peak %.1f dBTP, want <= %.0f", peak, VoicePeakDBTP)
	}
}

func ff(t *testing.T, args ...string) {
	t.Helper()
	args = append([]string{"-nostdin", "-hide_banner", "-loglevel", "error", "-y"}, args...)
	if out, err := exec.CommandContext(t.Context(), "ffmpeg", args...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg %v: %v: %s", args, err, out)
	}
}

var rmsRe = regexp.MustCompile(`RMS level dB:\s*(-?[0-9.]+|-inf)`)

// windowRMS is the RMS level (dBFS) of file's sound from a to b seconds.
func windowRMS(t *testing.T, file string, a, b float64) float64 {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "ffmpeg", "-nostdin", "-hide_banner", "-nostats", "-ss", strconv.FormatFloat(a, 'f', 3, 64),
		"-t", strconv.FormatFloat(b-a, 'f', 3, 64), "-i", file, "-vn", "-af", "astats=measure_perchannel=none:measure_overall=RMS_level", "-f", "null", "-").CombinedOutput()
	if err != nil {
		t.Fatalf("astats: %v: %s", err, out)
	}
	v := lastDB(rmsRe, string(out), math.NaN())
	if math.IsNaN(v) {
		return -120 // digital silence
	}
	return v
}

var peakRe = regexp.MustCompile(`(?s)True peak:\s*Peak:\s*(-?[0-9.]+|-inf) dBFS`)

// loudness is file's integrated loudness (LUFS) and true peak (dBTP) by ffmpeg's ebur128.
func loudness(t *testing.T, file string) (float64, float64) {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "ffmpeg", "-nostdin", "-hide_banner", "-nostats", "-i", file, "-vn",
		"-af", "ebur128=peak=true", "-f", "null", "-").CombinedOutput()
	if err != nil {
		t.Fatalf("ebur128: %v: %s", err, out)
	}
	return lastDB(loudRe, string(out), math.NaN()), lastDB(peakRe, string(out), math.NaN())
}
