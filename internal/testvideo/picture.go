package testvideo

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Backgrounds alternate between a dark and a light set so every cut changes the picture a lot.
var (
	darkColors  = []string{"0x1E3A8A", "0x7F1D1D", "0x14532D", "0x4C1D95", "0x111827"}
	lightColors = []string{"0xFDE68A", "0xBAE6FD", "0xFBCFE8", "0xD9F99D", "0xE5E7EB"}
)

// sceneGraph builds one filter graph: per scene a coloured background with a box moving around
// the scene's CenterX, all concatenated. Source time restarts per scene, so each box moves
// from its own phase.
func sceneGraph(scenes []Scene, w, h int) string {
	rng := newRand(3)
	bw, bh := even(w/6), even(h/4)
	var g strings.Builder
	var labels strings.Builder
	for i, sc := range scenes {
		bg, box := lightColors[rng.IntN(len(lightColors))], "black"
		if i%2 == 0 {
			bg, box = darkColors[rng.IntN(len(darkColors))], "white"
		}
		d := strconv.FormatFloat(sc.End-sc.Start, 'f', 4, 64)
		fmt.Fprintf(&g, "color=c=%s:s=%dx%d:r=%d:d=%s[b%d];", bg, w, h, frameRate, d, i)
		fmt.Fprintf(&g, "color=c=%s:s=%dx%d:r=%d:d=%s[k%d];", box, bw, bh, frameRate, d, i)
		fmt.Fprintf(&g, "[b%d][k%d]overlay=eval=frame:x='%.4f*main_w-overlay_w/2+0.05*main_w*sin(2*PI*t/1.7)':"+
			"y='main_h/2-overlay_h/2+0.18*main_h*sin(2*PI*t/2.3)'[s%d];\n", i, i, sc.CenterX, i)
		fmt.Fprintf(&labels, "[s%d]", i)
	}
	fmt.Fprintf(&g, "%sconcat=n=%d:v=1:a=0,format=yuv420p[out0]", labels.String(), len(scenes))
	return g.String()
}

// encode muxes the picture and the speech track; bitexact flags keep the file deterministic.
// The picture graph is a lavfi input read from a file: it can be longer than a command line.
func encode(ctx context.Context, path, wavPath string, opts Options, scenes []Scene) error {
	script := filepath.Join(filepath.Dir(wavPath), "graph.txt")
	if err := os.WriteFile(script, []byte(sceneGraph(scenes, opts.Width, opts.Height)), 0o600); err != nil {
		return fmt.Errorf("testvideo: write filter script: %w", err)
	}
	dur := strconv.FormatFloat(opts.Duration.Seconds(), 'f', 3, 64)
	args := []string{"-nostdin", "-hide_banner", "-loglevel", "error", "-y",
		"-f", "lavfi", "-graph_file", script, "-i", "picture", "-i", wavPath,
		"-map", "0:v", "-map", "1:a",
		"-c:v", "libx264", "-preset", "ultrafast", "-crf", "28", "-g", strconv.Itoa(2 * frameRate),
		"-pix_fmt", "yuv420p",
		"-c:a", "aac", "-b:a", "96k", "-ar", "44100", "-ac", "2",
		"-t", dur, "-map_metadata", "-1", "-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact",
		"-movflags", "+faststart", "-f", "mp4", path}
	cmd := exec.CommandContext(ctx, "ffmpeg", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		os.Remove(path)
		return fmt.Errorf("testvideo: ffmpeg encode: %w: %s", err, lastLines(stderr.String(), 8))
	}
	return nil
}

func even(v int) int { return max(2, v&^1) }

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
