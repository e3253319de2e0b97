package media

import (
	"bufio"
	"bytes"
	"context"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// colourSource is 6 s of red then blue (the cut at 2.5 s) over white noise, 25 fps.
func colourSource(t *testing.T, dir string) string {
	t.Helper()
	toolexectest.RequireTools(t, "ffmpeg", "ffprobe")
	src := filepath.Join(dir, "colours.mp4")
	ff(t, "-f", "lavfi", "-i", "color=c=red:s=320x240:r=25:d=2.5", "-f", "lavfi", "-i", "color=c=blue:s=320x240:r=25:d=3.5",
		"-f", "lavfi", "-i", "anoisesrc=r=48000:color=white:amplitude=0.3:seed=3:d=6",
		"-filter_complex", "[0:v][1:v]concat=n=2:v=1:a=0[v]", "-map", "[v]", "-map", "2:a",
		"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "192k", src)
	return src
}

// A clip of two pieces (a cut from 2 s to 3 s) with a fade between them: it is the pieces'
// length less the 0.3 s overlap, the frames in the overlap are a blend (neither the red
// before nor the blue after), and the sound runs through the join without a drop.
func TestTransitionAtAFillerCut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := colourSource(t, dir)
	opts := RenderOptions{Aspect: "landscape", PreviewHeight: 120, Keep: []Interval{{0, 2}, {3, 5}}, Transitions: Transitions{Names: []string{"fade"}}}
	h := Highlight{Start: 0, End: 5}
	joins := ClipJoins(h, 6, opts)
	if len(joins) != 1 || joins[0].At != 2 || joins[0].Dur != TransitionSec || joins[0].Hold {
		t.Fatalf("joins = %+v, want one 0.3 s overlap at 2 s", joins)
	}
	export, preview := filepath.Join(dir, "c.mp4"), filepath.Join(dir, "c.preview.mp4")
	res, err := renderFast(t.Context(), src, h, export, preview, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := Length(opts.Keep) - Overlap(joins)
	t.Logf("length %.3f s, want %.3f", res.DurationSec, want)
	if math.Abs(res.DurationSec-want) > 0.041 {
		t.Errorf("clip is %.3f s, want %.3f +- a frame", res.DurationSec, want)
	}
	// The overlap is 1.7-2.0 s of the clip.
	before, mid, after := meanRGB(t, export, 1.5), meanRGB(t, export, 1.86), meanRGB(t, export, 2.3)
	t.Logf("frames: before %v, mid-transition %v, after %v", before, mid, after)
	if before[0] < 180 || before[2] > 80 || after[2] < 180 || after[0] > 80 {
		t.Fatalf("expected red before and blue after the join, got %v and %v", before, after)
	}
	if mid[0] < 60 || mid[2] < 60 || colourDist(mid, before) < 60 || colourDist(mid, after) < 60 {
		t.Errorf("the frame mid-transition %v is not a blend of %v and %v", mid, before, after)
	}
	levels := rmsWindows(t, export, 0.05)
	mean, minAt, lowest := 0.0, 0.0, 0.0
	for i, v := range levels {
		mean += v / float64(len(levels))
		if at := float64(i) * 0.05; at > 1.2 && at < 2.4 && (lowest == 0 || v < lowest) {
			lowest, minAt = v, at
		}
	}
	t.Logf("sound: mean %.1f dBFS, lowest 50 ms window around the join %.1f dBFS at %.2f s", mean, lowest, minAt)
	if lowest < mean-6 {
		t.Errorf("the sound drops to %.1f dBFS at %.2f s (mean %.1f): a gap at the join", lowest, minAt, mean)
	}
}

// At a shot cut inside a piece (enableAutoTransition) the transition holds frames instead of
// overlapping: the clip keeps its length and the frame at the cut is a blend.
func TestTransitionAtAShotCutKeepsTheLength(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := colourSource(t, dir)
	opts := RenderOptions{Aspect: "landscape", PreviewHeight: 120, Shots: []Shot{{Start: 0, End: 2.5, Speaker: -1}, {Start: 2.5, End: 6, Speaker: -1}},
		Transitions: Transitions{AtShots: true}}
	h := Highlight{Start: 1, End: 5}
	joins := ClipJoins(h, 6, opts)
	if len(joins) != 1 || joins[0].At != 1.5 || !joins[0].Hold || joins[0].Name != DefaultTransition {
		t.Fatalf("joins = %+v, want one held fade at 1.5 s", joins)
	}
	export, preview := filepath.Join(dir, "c.mp4"), filepath.Join(dir, "c.preview.mp4")
	res, err := renderFast(t.Context(), src, h, export, preview, opts)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.DurationSec-4) > 0.041 {
		t.Errorf("clip is %.3f s, want 4 +- a frame", res.DurationSec)
	}
	before, mid, after := meanRGB(t, export, 1.0), meanRGB(t, export, 1.5), meanRGB(t, export, 2.0)
	t.Logf("frames: before %v, at the cut %v, after %v", before, mid, after)
	if colourDist(mid, before) < 60 || colourDist(mid, after) < 60 {
		t.Errorf("the frame at the cut %v is not a blend of %v and %v", mid, before, after)
	}
}

func TestClipJoinsShortenAndSkipShortParts(t *testing.T) {
	t.Parallel()
	opts := RenderOptions{Keep: []Interval{{0, 1}, {1.5, 1.75}, {2, 4}, {5, 5.2}}, Transitions: Transitions{Names: []string{"wipeleft", "slideup"}}}
	joins := ClipJoins(Highlight{Start: 0, End: 5.2}, 10, opts)
	// Parts 1, 0.25, 2 and 0.2 s long: the 0.25 s part allows 0.083 s (< 0.1, a plain cut),
	// so the first transition is at 1.25 s (parts 1.25 and 2 s: 0.3 s), then 0.2/3 < 0.1.
	if len(joins) != 1 || joins[0].At != 1.25 || joins[0].Dur != TransitionSec || joins[0].Name != "wipeleft" {
		t.Fatalf("joins = %+v", joins)
	}
	if got := ClipTime(joins, 3); math.Abs(got-2.7) > 1e-9 {
		t.Errorf("ClipTime(3) = %v, want 2.7", got)
	}
	if got := ClipTime(joins, 1); got != 1 {
		t.Errorf("ClipTime(1) = %v, want 1 (before the join)", got)
	}
	if ClipJoins(Highlight{Start: 0, End: 5.2}, 10, RenderOptions{Keep: opts.Keep}) != nil {
		t.Error("no transitions asked, joins found")
	}
}

// meanRGB is the mean colour of file's frame at sec.
func meanRGB(t *testing.T, file string, sec float64) [3]float64 {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "ffmpeg", "-nostdin", "-loglevel", "error", "-ss", strconv.FormatFloat(sec, 'f', 3, 64), "-i", file,
		"-frames:v", "1", "-vf", "scale=1:1:flags=area", "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	if err != nil || len(out) < 3 {
		t.Fatalf("frame at %.2f: %v", sec, err)
	}
	return [3]float64{float64(out[0]), float64(out[1]), float64(out[2])}
}

func colourDist(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}

// rmsWindows is the RMS level (dBFS) of file's sound in consecutive windows of win seconds.
func rmsWindows(t *testing.T, file string, win float64) []float64 {
	t.Helper()
	n := strconv.Itoa(int(48000 * win))
	out, err := exec.CommandContext(t.Context(), "ffmpeg", "-nostdin", "-loglevel", "error", "-i", file, "-vn", "-af",
		"aresample=48000,asetnsamples=n="+n+":p=0,astats=metadata=1:reset=1:measure_perchannel=none:measure_overall=RMS_level,"+
			"ametadata=mode=print:key=lavfi.astats.Overall.RMS_level:file=-", "-f", "null", "-").Output()
	if err != nil {
		t.Fatalf("rms: %v", err)
	}
	var levels []float64
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "lavfi.astats.Overall.RMS_level="); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsInf(f, 0) {
				f = -120
			}
			levels = append(levels, f)
		}
	}
	return levels
}

// BenchmarkRenderSound renders the same 20 s portrait clip of a generated speech source
// (three pieces, as after filler cuts; the source's shots) plain, with voice enhancement,
// and with transitions at the cuts and the shot cuts, in turn, so their cost compares
// with the plain render directly.
func BenchmarkRenderSound(b *testing.B) {
	requireFFmpeg(b)
	dir := b.TempDir()
	src := filepath.Join(dir, "speech.mp4")
	if err := testvideo.Generate(context.Background(), src, testvideo.Options{Duration: 30 * time.Second, Width: 1280, Height: 720}); err != nil {
		b.Fatal(err)
	}
	a, err := Analyze(context.Background(), src)
	if err != nil {
		b.Fatal(err)
	}
	info, err := Probe(context.Background(), src)
	if err != nil {
		b.Fatal(err)
	}
	h := Highlight{Start: 4, End: 26, CenterX: 0.5}
	keep := []Interval{{4, 10}, {11, 18}, {19, 26}}
	base := RenderOptions{Aspect: "portrait", Layout: LayoutCenter, Shots: a.Shots, Source: info, Keep: keep}
	voice, trans := base, base
	voice.Voice = true
	trans.Transitions = Transitions{Names: []string{"fade", "wipeleft"}, AtShots: true}
	b.Logf("shots in the clip: %d joins with transitions", len(ClipJoins(h, info.DurationSec, trans)))
	for _, c := range []struct {
		name string
		opts RenderOptions
	}{{"plain", base}, {"voice", voice}, {"transitions", trans}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := renderFast(context.Background(), src, h, filepath.Join(dir, "e.mp4"), filepath.Join(dir, "p.mp4"), c.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
