package media

import (
	"context"
	"math"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe/speechtest"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

func TestKeptRanges(t *testing.T) {
	t.Parallel()
	span := Interval{10, 20}
	cases := []struct {
		name string
		cuts []Interval
		want []Interval
	}{
		{"no cuts", nil, []Interval{{10, 20}}},
		{"one inside", []Interval{{12, 13}}, []Interval{{10, 12}, {13, 20}}},
		{"unsorted and overlapping", []Interval{{15, 16}, {12, 13}, {12.5, 14}}, []Interval{{10, 12}, {14, 15}, {16, 20}}},
		{"at the edges and outside", []Interval{{8, 10.5}, {19.5, 25}, {30, 31}, {1, 2}}, []Interval{{10.5, 19.5}}},
		{"a sliver between cuts goes too", []Interval{{12, 13}, {13.05, 14}}, []Interval{{10, 12}, {14, 20}}},
		{"empty cut ignored", []Interval{{12, 12}}, []Interval{{10, 20}}},
		{"everything cut", []Interval{{9, 21}}, nil},
	}
	for _, c := range cases {
		if got := KeptRanges(span, c.cuts); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if l := Length([]Interval{{1, 2}, {3, 4.5}}); l != 2.5 {
		t.Errorf("Length = %v", l)
	}
}

// Cutting a spoken "um" out of a clip shortens it by the filler's length.
func TestRenderClipCutsRanges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src, spans := speechtest.Video(t, dir, []string{"the garden", "um", "needs water"}, 0.3)
	h := Highlight{Start: spans[0].Start, End: spans[2].End, CenterX: 0.5}
	filler := Interval{spans[1].Start, spans[1].End}
	keep := KeptRanges(Interval{h.Start, h.End}, []Interval{filler})
	render := func(name string, keep []Interval) float64 {
		exp, pre := filepath.Join(dir, name+".mp4"), filepath.Join(dir, name+"-p.mp4")
		res, err := renderFast(context.Background(), src, h, exp, pre, RenderOptions{Aspect: "square", PreviewHeight: 240, Keep: keep})
		if err != nil {
			t.Fatal(err)
		}
		if p := probeFile(t, pre); math.Abs(p.DurationSec-res.DurationSec) > 0.1 {
			t.Errorf("%s: preview %.3f s, export %.3f s", name, p.DurationSec, res.DurationSec)
		}
		if p := probeFile(t, exp); !p.HasAudio {
			t.Errorf("%s: export without audio", name)
		}
		return res.DurationSec
	}
	full, cut := render("full", nil), render("cut", keep)
	fl := filler.End - filler.Start
	t.Logf("full %.3f s, cut %.3f s: shorter by %.3f s; the filler lasts %.3f s", full, cut, full-cut, fl)
	if math.Abs((full-cut)-fl) > 0.1 {
		t.Errorf("cut clip is %.3f s shorter, want the filler's %.3f s", full-cut, fl)
	}
}

// TestRenderClipCutsWithoutClicks cuts a steady 440 Hz tone at odd phases. Joined
// bare, the wave jumps at each joint (a click); with the fades, no sample steps
// further than the tone itself does from one sample to the next.
func TestRenderClipCutsWithoutClicks(t *testing.T) {
	t.Parallel()
	toolexectest.RequireTools(t, "ffmpeg", "ffprobe")
	dir := t.TempDir()
	src := filepath.Join(dir, "tone.mp4")
	out, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-y",
		"-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=4",
		"-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=4",
		"-af", "volume=4", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", src).CombinedOutput()
	if err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, out)
	}
	h := Highlight{Start: 0.2, End: 3.8, CenterX: 0.5}
	// Cut points a fraction of a period apart, so the bare joints would land mid-wave.
	keep := []Interval{{0.2, 1.0011}, {1.4017, 2.2003}, {2.6029, 3.8}}
	render := func(name string, keep []Interval) []int16 {
		exp, pre := filepath.Join(dir, name+".mp4"), filepath.Join(dir, name+"-p.mp4")
		if _, err := renderFast(context.Background(), src, h, exp, pre,
			RenderOptions{Aspect: "square", PreviewHeight: 240, Keep: keep}); err != nil {
			t.Fatal(err)
		}
		return pcm(t, exp)
	}
	whole, cut := render("whole", nil), render("cut", keep)
	// Skip the first and last 50 ms: the encoder's start and end are not joints.
	edge := censorRate / 20
	tone := maxStep(whole[edge : len(whole)-edge])
	joints := maxStep(cut[edge : len(cut)-edge])
	t.Logf("largest sample step: whole tone %d, cut clip %d (%.2fx)", tone, joints, float64(joints)/float64(tone))
	if tone == 0 {
		t.Fatal("the tone rendered silent")
	}
	if float64(joints) > 1.25*float64(tone) {
		t.Errorf("a joint steps %d between samples, the tone itself at most %d: a click", joints, tone)
	}
}

// maxStep is the largest difference between neighbouring samples.
func maxStep(s []int16) int {
	m := 0
	for i := 1; i < len(s); i++ {
		d := int(s[i]) - int(s[i-1])
		m = max(m, d, -d)
	}
	return m
}
