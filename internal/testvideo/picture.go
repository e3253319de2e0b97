package testvideo

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// Backgrounds alternate between a dark and a light set so every cut changes the picture a lot.
var (
	darkColors  = []string{"0x1E3A8A", "0x7F1D1D", "0x14532D", "0x4C1D95", "0x111827"}
	lightColors = []string{"0xFDE68A", "0xBAE6FD", "0xFBCFE8", "0xD9F99D", "0xE5E7EB"}
)

// sceneLook is how one scene is drawn.
type sceneLook struct {
	bg, box string
	cx      float64
}

func looks(scenes []Scene) []sceneLook {
	rng := newRand(3)
	out := make([]sceneLook, len(scenes))
	for i, sc := range scenes {
		out[i] = sceneLook{bg: lightColors[rng.IntN(len(lightColors))], box: "black", cx: sc.CenterX}
		if i%2 == 0 {
			out[i].bg, out[i].box = darkColors[rng.IntN(len(darkColors))], "white"
		}
	}
	return out
}

// Box motion: it sways around its scene's centre by swayX of the width and bobs by swayY of
// the height.
const (
	swayX = 0.05
	swayY = 0.18
)

// pictureGraph draws a box on a coloured canvas larger than the frame and crops a moving
// frame-sized window out of it, so the box appears to move: cropping only offsets pointers,
// which keeps a long 720p picture cheap (an overlay copying every frame was the bottleneck).
// A sendcmd at the end of the chain recolours the canvas and the box and re-aims the crop at
// every cut; it fires as the frame before the cut leaves the graph, so the next frame
// generated is the first of the new scene.
func pictureGraph(scenes []Scene, w, h int, duration float64, cmdFile string) (graph, cmds string) {
	lk := looks(scenes)
	lo, hi := 1.0, 0.0
	for _, l := range lk {
		lo, hi = min(lo, l.cx-swayX), max(hi, l.cx+swayX)
	}
	bw, bh := even(w/6), even(h/4)
	boxX := math.Ceil(hi*float64(w)) + 2 // box centre on the canvas
	boxY := math.Ceil(float64(h)/2+swayY*float64(h)) + 2
	canvasW := even(int(math.Ceil(boxX-lo*float64(w))) + w + 4)
	canvasH := even(int(2*boxY) + 2)
	// The crop's left edge puts the box centre at cx*w plus the sway.
	cropX := func(cx float64) string {
		return fmt.Sprintf("%.1f-(%.4f*%d+%.4f*%d*sin(2*PI*t/1.7))", boxX, cx, w, swayX, w)
	}

	var c strings.Builder
	for i := 1; i < len(scenes); i++ {
		before := math.Round(scenes[i].Start*frameRate) - 1 // the last frame of the previous scene
		fmt.Fprintf(&c, "%.6f color@bg c %s, drawbox@box c %s, crop@mv x %s;\n",
			before/frameRate, lk[i].bg, lk[i].box, cropX(lk[i].cx))
	}
	d := strconv.FormatFloat(duration, 'f', 3, 64)
	graph = fmt.Sprintf("color@bg=c=%s:s=%dx%d:r=%d:d=%s,"+
		"drawbox@box=x=%.0f:y=%.0f:w=%d:h=%d:c=%s:t=fill,"+
		"crop@mv=w=%d:h=%d:x=%s:y=%.1f-(%d/2+%.4f*%d*sin(2*PI*t/2.3)),"+
		"sendcmd=f=%s,format=yuv420p[out0]",
		lk[0].bg, canvasW, canvasH, frameRate, d,
		boxX-float64(bw/2), boxY-float64(bh/2), bw, bh, lk[0].box,
		w, h, cropX(lk[0].cx), boxY, h, swayY, h,
		toolexec.FilterValue(cmdFile))
	return graph, c.String()
}

// encode muxes the picture and the speech track; bitexact flags keep the file deterministic.
// The fast AAC coder halves the audio cost, which runs on ffmpeg's main thread and otherwise
// paces the whole encode.
func encode(ctx context.Context, path, wavPath string, opts Options, scenes []Scene) error {
	dir := filepath.Dir(wavPath)
	graphFile, cmdFile := filepath.Join(dir, "graph.txt"), filepath.Join(dir, "scenes.cmd")
	graph, cmds := pictureGraph(scenes, opts.Width, opts.Height, opts.Duration.Seconds(), cmdFile)
	if err := os.WriteFile(graphFile, []byte(graph), 0o600); err != nil {
		return fmt.Errorf("testvideo: write filter graph: %w", err)
	}
	if err := os.WriteFile(cmdFile, []byte(cmds), 0o600); err != nil {
		return fmt.Errorf("testvideo: write scene commands: %w", err)
	}
	dur := strconv.FormatFloat(opts.Duration.Seconds(), 'f', 3, 64)
	args := []string{"-nostdin", "-hide_banner", "-loglevel", "error", "-y",
		"-f", "lavfi", "-graph_file", graphFile, "-i", "picture", "-i", wavPath,
		"-map", "0:v", "-map", "1:a",
		"-c:v", "libx264", "-preset", "ultrafast", "-crf", "28", "-g", strconv.Itoa(2 * frameRate),
		"-pix_fmt", "yuv420p",
		"-c:a", "aac", "-aac_coder", "fast", "-b:a", "96k", "-ar", "44100", "-ac", "2",
		"-t", dur, "-map_metadata", "-1", "-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact",
		"-movflags", "+faststart", "-f", "mp4", toolexec.LocalURL(path)}
	cmd := toolexec.Command(ctx, "ffmpeg", args...)
	var stderr toolexec.Tail
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		os.Remove(path)
		return fmt.Errorf("testvideo: ffmpeg encode: %w: %s", err, stderr.LastLines(8))
	}
	return nil
}

func even(v int) int { return max(2, v&^1) }
