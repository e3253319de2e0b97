// Package mediacheck reads what a rendered file shows and sounds like, for
// tests: one frame's pixels and the audio's level per half second, decoded
// by the real ffmpeg.
package mediacheck

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// FFmpeg runs ffmpeg with args (quiet, overwriting) or fails the test.
func FFmpeg(t testing.TB, args ...string) {
	t.Helper()
	if out, err := exec.Command("ffmpeg", append([]string{"-nostdin", "-v", "error", "-y"}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg %v: %v\n%s", args, err, out)
	}
}

// Frame is one RGB frame scaled to W x H.
type Frame struct {
	W, H int
	RGB  []byte
}

// FrameAt is path's frame at second sec, scaled to w x h.
func FrameAt(t testing.TB, path string, sec float64, w, h int) Frame {
	t.Helper()
	out := filepath.Join(t.TempDir(), "frame.rgb")
	FFmpeg(t, "-ss", seconds(sec), "-i", toolexec.LocalURL(path), "-frames:v", "1",
		"-vf", "scale="+strconv.Itoa(w)+":"+strconv.Itoa(h), "-f", "rawvideo", "-pix_fmt", "rgb24", toolexec.LocalURL(out))
	b, err := os.ReadFile(out)
	if err != nil || len(b) != w*h*3 {
		t.Fatalf("frame at %.2f s: %d bytes, %v", sec, len(b), err)
	}
	return Frame{W: w, H: h, RGB: b}
}

// Near: the pixel (x, y) is within 40 of each channel of c (the encoder's
// chroma subsampling moves colours a little, never that far).
func (f Frame) Near(x, y int, c [3]int) bool {
	p := f.RGB[(y*f.W+x)*3:]
	for i := range 3 {
		if d := int(p[i]) - c[i]; d < -40 || d > 40 {
			return false
		}
	}
	return true
}

// Share is the share of the pixels within [x0,x1)x[y0,y1) that are Near c.
func (f Frame) Share(x0, y0, x1, y1 int, c [3]int) float64 {
	n, in := 0, 0
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			n++
			if f.Near(x, y, c) {
				in++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(in) / float64(n)
}

// Levels is the RMS level (dBFS) of each half second of path's audio over
// [from, to); to <= from reads to the end.
func Levels(t testing.TB, path string, from, to float64) []float64 {
	t.Helper()
	out := filepath.Join(t.TempDir(), "audio.raw")
	args := []string{"-ss", seconds(from)}
	if to > from {
		args = append(args, "-t", seconds(to-from))
	}
	args = append(args, "-i", toolexec.LocalURL(path), "-vn", "-ac", "1", "-ar", "16000", "-f", "s16le", toolexec.LocalURL(out))
	FFmpeg(t, args...)
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	const win = 8000 // samples in half a second at 16 kHz
	var dbs []float64
	for i := 0; i+2*win <= len(raw); i += 2 * win {
		var sum float64
		for j := i; j < i+2*win; j += 2 {
			v := float64(int16(uint16(raw[j]) | uint16(raw[j+1])<<8))
			sum += v * v
		}
		dbs = append(dbs, 10*math.Log10(sum/win/(32768*32768)+1e-12))
	}
	return dbs
}

// SameLevels: a and b have as many half seconds and each within tolerance dB
// (an encoder changes samples, not levels). It logs the first difference.
func SameLevels(t testing.TB, a, b []float64, tolerance float64) bool {
	t.Helper()
	if len(a) == 0 || len(a) != len(b) {
		t.Logf("levels %v and %v", a, b)
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tolerance {
			t.Logf("half second %d: %.2f dB and %.2f dB", i, a[i], b[i])
			return false
		}
	}
	return true
}

func seconds(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) }
