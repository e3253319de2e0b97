package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// The b-roll and screen-overlay looks: a clip of the generated moving face
// cutting away to a b-roll picture (ffmpeg's sierpinski), and the same clip
// with a picture (ffmpeg's testsrc) drawn at a rect.
func init() {
	looks = append(looks,
		look{name: "broll", make: func(ctx context.Context, work string) (string, float64, error) {
			pic := filepath.Join(work, "broll.png")
			if err := still(ctx, "sierpinski=size=640x360:seed=3", pic); err != nil {
				return "", 0, err
			}
			clip, err := extrasClip(ctx, work, media.RenderOptions{Broll: []media.BrollCut{{Path: pic, Start: 1, End: 3.5}}})
			return clip, 2, err
		}},
		look{name: "overlay", make: func(ctx context.Context, work string) (string, float64, error) {
			pic := filepath.Join(work, "overlay.png")
			if err := still(ctx, "testsrc=size=640x360", pic); err != nil {
				return "", 0, err
			}
			// renderPref.screenOverlays[0].rect {xPct: 10, yPct: 6, wPct: 80, hPct: 25}
			clip, err := extrasClip(ctx, work, media.RenderOptions{Overlays: []media.Overlay{{Path: pic, X: 0.1, Y: 0.06, W: 0.8, H: 0.25}}})
			return clip, 2, err
		}},
	)
}

// still writes the first frame of an ffmpeg source to png.
func still(ctx context.Context, source, png string) error {
	cmd := toolexec.Command(ctx, "ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", source, "-frames:v", "1", toolexec.LocalURL(png))
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("picture %s: %w: %s", source, err, msg)
	}
	return nil
}

// extrasClip renders 4 s of the moving face, portrait, with opts.
func extrasClip(ctx context.Context, work string, opts media.RenderOptions) (string, error) {
	src := filepath.Join(work, "face.mp4")
	if _, err := testvideo.MovingFace(ctx, src, testvideo.FaceOptions{Duration: 5 * time.Second, Silent: true}); err != nil {
		return "", err
	}
	opts.Layout = media.LayoutCenter
	clip := filepath.Join(work, "clip.mp4")
	_, err := media.RenderClip(ctx, src, media.Highlight{Start: 0, End: 4, CenterX: 0.5}, clip, filepath.Join(work, "preview.mp4"), opts)
	return clip, err
}
