package media

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo/mediacheck"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// TestRenderFitCropRatioShowsOnlyThatBox: fitLayoutCropRatio 1:1 fits the
// source's centre square, not the whole picture: on a red source with a
// green centre square, the portrait fit's left edge at mid-height is red
// (the whole picture's red side strips) without it and green with it.
func TestRenderFitCropRatioShowsOnlyThatBox(t *testing.T) {
	t.Parallel()
	requireFFmpeg(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src.mp4")
	args := append(ffmpegBase(), "-f", "lavfi", "-i", "color=c=red:s=1280x720:r=25:d=2",
		"-vf", "drawbox=x=280:y=0:w=720:h=720:color=green:t=fill", "-c:v", "libx264", "-pix_fmt", "yuv420p", toolexec.LocalURL(src))
	if err := runTool(context.Background(), "test source", "ffmpeg", args, nil); err != nil {
		t.Fatal(err)
	}
	red, green := [3]int{255, 0, 0}, [3]int{0, 128, 0}
	for _, c := range []struct {
		ratio float64
		want  [3]int
	}{{0, red}, {1, green}} {
		exp, pre := filepath.Join(dir, "e.mp4"), filepath.Join(dir, "p.mp4")
		opts := RenderOptions{Aspect: "portrait", Layout: LayoutFit, FitCropRatio: c.ratio}
		if _, err := renderFast(t.Context(), src, Highlight{Start: 0, End: 1.5, CenterX: 0.5}, exp, pre, opts); err != nil {
			t.Fatal(err)
		}
		frame := mediacheck.FrameAt(t, exp, 0.5, 100, 178)
		if !frame.Near(3, 89, c.want) {
			p := frame.RGB[(89*100+3)*3:]
			t.Errorf("fit with crop ratio %g: left edge at mid-height is %v, want about %v", c.ratio, p[:3], c.want)
		}
	}
}
