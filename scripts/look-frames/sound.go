package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// The transition look: a clip of two pieces (a cut from 2 s to 3 s of a source that turns
// from test pattern to colour bars at 2.5 s) joined by a wipeleft transition, shown
// halfway through it.
func init() {
	looks = append(looks, look{name: "transition", make: func(ctx context.Context, work string) (string, float64, error) {
		src := filepath.Join(work, "src.mp4")
		cmd := toolexec.Command(ctx, "ffmpeg", "-nostdin", "-v", "error", "-y",
			"-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=2.5", "-f", "lavfi", "-i", "smptehdbars=s=640x360:r=25:d=3.5",
			"-f", "lavfi", "-i", "sine=f=440:d=6",
			"-filter_complex", "[0:v][1:v]concat=n=2:v=1:a=0[v]", "-map", "[v]", "-map", "2:a",
			"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", toolexec.LocalURL(src))
		if msg, err := cmd.CombinedOutput(); err != nil {
			return "", 0, fmt.Errorf("source: %w: %s", err, msg)
		}
		opts := media.RenderOptions{Layout: media.LayoutFit, Keep: []media.Interval{{Start: 0, End: 2}, {Start: 3, End: 5}},
			Transitions: media.Transitions{Names: []string{"wipeleft"}}}
		h := media.Highlight{Start: 0, End: 5}
		j := media.ClipJoins(h, 6, opts)
		clip := filepath.Join(work, "clip.mp4")
		if _, err := media.RenderClip(ctx, src, h, clip, filepath.Join(work, "clip.preview.mp4"), opts); err != nil {
			return "", 0, err
		}
		// The overlap starts Dur before the join, in the clip's time.
		return clip, j[0].At - j[0].Dur/2, nil
	}})
}
