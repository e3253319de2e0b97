package media

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo/mediacheck"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// colourPicture writes a w x h picture of one colour (ffmpeg's color source)
// to path: a PNG, or with seconds > 0 a video.
func colourPicture(t *testing.T, path, colour string, w, h int, seconds float64) {
	t.Helper()
	args := append(ffmpegBase(), "-f", "lavfi", "-i", "color=c="+colour+":s="+strconv.Itoa(w)+"x"+strconv.Itoa(h)+":r=25")
	if seconds > 0 {
		args = append(args, "-t", strconv.FormatFloat(seconds, 'f', 3, 64), "-c:v", "libx264", "-pix_fmt", "yuv420p")
	} else {
		args = append(args, "-frames:v", "1")
	}
	if err := runTool(context.Background(), "test picture", "ffmpeg", append(args, toolexec.LocalURL(path)), nil); err != nil {
		t.Fatal(err)
	}
}

func TestProbeVisualTellsStillsVideosAndOthers(t *testing.T) {
	t.Parallel()
	requireFFmpeg(t)
	dir := t.TempDir()
	png, mp4, txt := filepath.Join(dir, "a.png"), filepath.Join(dir, "b.mp4"), filepath.Join(dir, "c.txt")
	colourPicture(t, png, "red", 64, 48, 0)
	colourPicture(t, mp4, "blue", 64, 48, 1)
	if err := os.WriteFile(txt, []byte("not a picture\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if v, err := ProbeVisual(ctx, png); err != nil || !v.Still || v.Width != 64 || v.Height != 48 {
		t.Errorf("png: %+v, %v; want a 64x48 still", v, err)
	}
	if v, err := ProbeVisual(ctx, mp4); err != nil || v.Still || v.DurationSec < 0.9 {
		t.Errorf("mp4: %+v, %v; want a 1 s video", v, err)
	}
	if v, err := ProbeVisual(ctx, txt); !errors.Is(err, ErrNotVideo) {
		t.Errorf("text: %+v, %v; want ErrNotVideo", v, err)
	}
}

func TestPlanBrollCutsAwayAtMatchingWordsWithinTheShare(t *testing.T) {
	t.Parallel()
	items := []BrollItem{{Path: "oven.png", Keywords: []string{"ovens", "bake"}}, {Path: "tree.png", Keywords: []string{"garden"}}}
	words := []Word{
		{Text: "the", Start: 0.5, End: 0.7}, {Text: "oven", Start: 1, End: 1.4}, // oven.png 1-2.5 (1.5 s)
		{Text: "baking", Start: 2.6, End: 3.0}, // within the gap after the first: none
		{Text: "gardens", Start: 5, End: 7.5},  // tree.png 5-8 (at most 3 s)
		{Text: "oven", Start: 12, End: 12.5},   // the 30% share of 20 s is 6 s: 1.5 s left
		{Text: "baked", Start: 18, End: 18.4},  // share used up
	}
	got := PlanBroll(words, items, 20)
	want := []BrollCut{{"oven.png", 1, 2.5}, {"tree.png", 5, 8}, {"oven.png", 12, 13.5}}
	if len(got) != len(want) {
		t.Fatalf("cuts %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Path != want[i].Path || math.Abs(got[i].Start-want[i].Start) > 1e-9 || math.Abs(got[i].End-want[i].End) > 1e-9 {
			t.Errorf("cut %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if cuts := PlanBroll([]Word{{Text: "oven", Start: 9, End: 9.5}}, items, 10); len(cuts) != 0 {
		t.Errorf("a word 1 s before the end: %+v, want no cut shorter than %.1f s", cuts, BrollMinSec)
	}
}

// A cut-away shows its picture over its span only, the overlay is at its box
// all along, and the audio is the source's.
func TestRenderDrawsBrollAndOverlays(t *testing.T) {
	t.Parallel()
	requireFFmpeg(t)
	src, _ := sourceVideo(t, 8, 640, 360)
	dir := t.TempDir()
	broll, ov := filepath.Join(dir, "broll.mp4"), filepath.Join(dir, "logo.png")
	colourPicture(t, broll, "0xFF00FF", 320, 240, 1) // shorter than the cut: its last frame holds
	colourPicture(t, ov, "0x00FF00", 100, 100, 0)
	clipOv := filepath.Join(dir, "blue.mp4")
	colourPicture(t, clipOv, "0x0000FF", 100, 100, 1) // a 1 s video overlay: held after its end
	exp, prev := filepath.Join(dir, "c.mp4"), filepath.Join(dir, "c.preview.mp4")
	opts := RenderOptions{Aspect: "square", Layout: LayoutCenter,
		Broll:    []BrollCut{{Path: broll, Start: 2, End: 4}},
		Overlays: []Overlay{{Path: ov, X: 0.7, Y: 0.05, W: 0.2, H: 0.2}, {Path: clipOv, X: 0.05, Y: 0.05, W: 0.2, H: 0.2}}}
	if _, err := renderFast(context.Background(), src, Highlight{Start: 0, End: 6, CenterX: 0.5}, exp, prev, opts); err != nil {
		t.Fatal(err)
	}
	const w, h = 100, 100
	magenta, green, blue := [3]int{255, 0, 255}, [3]int{0, 255, 0}, [3]int{0, 0, 255}
	for _, sec := range []float64{0.5, 1.8, 2.2, 3, 3.8, 4.3, 5.5} {
		f := mediacheck.FrameAt(t, exp, sec, w, h)
		in := sec > 2 && sec < 4
		if got := f.Near(30, 60, magenta) && f.Near(50, 90, magenta); got != in {
			t.Errorf("at %.1f s: b-roll picture shown %v, want %v", sec, got, in)
		}
		if !f.Near(80, 15, green) || f.Near(60, 15, green) {
			t.Errorf("at %.1f s: the overlay is not (only) at its box 70-90%% x 5-25%%", sec)
		}
		if !f.Near(15, 15, blue) || f.Near(15, 35, blue) {
			t.Errorf("at %.1f s: the video overlay is not (only) at its box 5-25%% x 5-25%%", sec)
		}
	}
	if !mediacheck.SameLevels(t, mediacheck.Levels(t, src, 0, 6), mediacheck.Levels(t, exp, 0, 6), 0.5) {
		t.Error("the audio of the clip differs from the source's")
	}
}
