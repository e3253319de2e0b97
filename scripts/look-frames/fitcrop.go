package main

import (
	"context"
	"path/filepath"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
)

// The fit layout with fitLayoutCropRatio 1:1: the source's centre square,
// not its whole width, fitted over the blurred fill.
func init() {
	looks = append(looks, look{name: "fit-crop-1x1", make: func(ctx context.Context, work string) (string, float64, error) {
		src := filepath.Join(work, "face.mp4")
		if _, err := testvideo.MovingFace(ctx, src, testvideo.FaceOptions{Duration: 5 * time.Second, Silent: true}); err != nil {
			return "", 0, err
		}
		clip := filepath.Join(work, "clip.mp4")
		opts := media.RenderOptions{Layout: media.LayoutFit, FitCropRatio: 1}
		_, err := media.RenderClip(ctx, src, media.Highlight{Start: 0, End: 4, CenterX: 0.5}, clip, filepath.Join(work, "preview.mp4"), opts)
		return clip, 2, err
	}})
}
