package media

import (
	"fmt"
	"math"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// Overlay is a picture (image or video, on local disk) drawn over the whole
// clip inside a box of the frame: X, Y, W and H are fractions of the output
// frame (renderPref.screenOverlays[].rect's percentages / 100).
type Overlay struct {
	Path       string
	X, Y, W, H float64
}

// overlayBox is the box of o in pixels of a size frame, clamped to the frame.
func overlayBox(o Overlay, size [2]int) rect {
	c := func(v float64) float64 { return math.Min(1, math.Max(0, v)) }
	x, y := c(o.X), c(o.Y)
	w, h := math.Min(c(o.W), 1-x), math.Min(c(o.H), 1-y)
	return rect{
		x: int(math.Round(x * float64(size[0]))), y: int(math.Round(y * float64(size[1]))),
		w: int(math.Round(w * float64(size[0]))), h: int(math.Round(h * float64(size[1]))),
	}
}

// overlayGraph draws the overlays, in order, over the open chain graph (the
// clip's picture, size pixels). Each is scaled to fit inside its box keeping
// its shape, centred in it; an image stays for the whole clip, a video plays
// from the clip's start and holds its last frame once it ends. A box under 2
// pixels either way draws nothing.
func overlayGraph(graph string, items []Overlay, size [2]int) string {
	for i, o := range items {
		b := overlayBox(o, size)
		if b.w < 2 || b.h < 2 {
			continue
		}
		graph += fmt.Sprintf("[ovm%d];movie=filename=%s,scale=%d:%d:force_original_aspect_ratio=decrease:flags=bicubic,setsar=1,setpts=PTS-STARTPTS[ovp%d];"+
			"[ovm%d][ovp%d]overlay=x=%d+(%d-w)/2:y=%d+(%d-h)/2:eof_action=repeat",
			i, toolexec.FilterValue(o.Path), b.w, b.h, i, i, i, b.x, b.w, b.y, b.h)
	}
	return graph
}
