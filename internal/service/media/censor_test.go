package media

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

const censorRate = 16000

// censorInput writes 3 s of seeded noise (a stand-in for speech: every
// sample differs) as a 16 kHz mono WAV.
func censorInput(t *testing.T) string {
	t.Helper()
	toolexectest.RequireTools(t, "ffmpeg")
	in := filepath.Join(t.TempDir(), "in.wav")
	out, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
		"-i", "anoisesrc=r=16000:a=0.2:d=3:seed=7", "-ac", "1", "-c:a", "pcm_s16le", in).CombinedOutput()
	if err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, out)
	}
	return in
}

// pcm decodes a file's audio to 16 kHz mono signed 16-bit samples.
func pcm(t *testing.T, path string) []int16 {
	t.Helper()
	raw, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-i", path, "-ac", "1", "-ar", "16000",
		"-f", "s16le", "-").Output()
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	s := make([]int16, len(raw)/2)
	for i := range s {
		s[i] = int16(binary.LittleEndian.Uint16(raw[2*i:]))
	}
	return s
}

// goertzel is the power of samples at freq, normalised by the samples'
// total power: near 1 for a pure tone at freq, near 0 for silence or noise.
func goertzel(s []int16, freq float64) float64 {
	w := 2 * math.Pi * freq / censorRate
	c := 2 * math.Cos(w)
	var s1, s2, total float64
	for _, v := range s {
		x := float64(v)
		s0 := x + c*s1 - s2
		s2, s1 = s1, s0
		total += x * x
	}
	p := s1*s1 + s2*s2 - c*s1*s2
	if total == 0 {
		return 0
	}
	return 2 * p / (float64(len(s)) * total)
}

func rms(s []int16) float64 {
	var sum float64
	for _, v := range s {
		sum += float64(v) * float64(v)
	}
	return math.Sqrt(sum / float64(max(1, len(s))))
}

// TestCensorAudio: inside the span the audio is a 1 kHz beep (or silence);
// every sample outside it is the input's, bit for bit.
func TestCensorAudio(t *testing.T) {
	t.Parallel()
	in := censorInput(t)
	orig := pcm(t, in)
	span := CensorSpan{Start: 1.0, End: 1.5}
	// A margin of a millisecond either side of the span's edges.
	lo, hi := int(span.Start*censorRate)-16, int(span.End*censorRate)+16
	inLo, inHi := int(span.Start*censorRate)+16, int(span.End*censorRate)-16
	for _, beep := range []bool{false, true} {
		out := filepath.Join(t.TempDir(), "out.wav")
		if err := CensorAudio(context.Background(), in, out, []CensorSpan{span}, beep); err != nil {
			t.Fatal(err)
		}
		got := pcm(t, out)
		if len(got) != len(orig) {
			t.Fatalf("beep=%v: %d samples, want %d", beep, len(got), len(orig))
		}
		changed := 0
		for i := range orig {
			if (i < lo || i >= hi) && got[i] != orig[i] {
				changed++
			}
		}
		if changed != 0 {
			t.Errorf("beep=%v: %d samples outside the span changed", beep, changed)
		}
		inside := got[inLo:inHi]
		tone := goertzel(inside, BeepHz)
		t.Logf("beep=%v: inside rms %.1f (input %.1f), 1 kHz share %.3f (input %.4f); outside: %d of %d samples changed",
			beep, rms(inside), rms(orig[inLo:inHi]), tone, goertzel(orig[inLo:inHi], BeepHz), changed, len(orig)-(hi-lo))
		if beep {
			if tone < 0.9 || rms(inside) < 0.25*32767/math.Sqrt2 {
				t.Errorf("beep: 1 kHz share %.3f, rms %.1f: want a loud 1 kHz tone", tone, rms(inside))
			}
		} else if r := rms(inside); r != 0 {
			t.Errorf("silence: rms %.1f inside the span, want 0", r)
		}
	}
}

// TestCensorAudioNothing copies a file when no span has a length.
func TestCensorAudioNothing(t *testing.T) {
	t.Parallel()
	in := censorInput(t)
	out := filepath.Join(t.TempDir(), "out.wav")
	if err := CensorAudio(context.Background(), in, out, []CensorSpan{{Start: 2, End: 2}}, true); err != nil {
		t.Fatal(err)
	}
	a, b := pcm(t, in), pcm(t, out)
	if len(a) != len(b) {
		t.Fatalf("%d samples, want %d", len(b), len(a))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("sample %d changed", i)
		}
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
}
