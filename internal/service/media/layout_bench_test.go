package media

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
)

// BenchmarkRenderLayout renders the same 6 s portrait clip of the two-face video (analysed
// once) in the fixed centre crop, which is today's render, and in the layouts that follow
// or cut the picture into panels, so their cost compares with it directly.
func BenchmarkRenderLayout(b *testing.B) {
	requireFFmpeg(b)
	dir := b.TempDir()
	src := filepath.Join(dir, "two.mp4")
	if _, err := testvideo.TwoFaces(context.Background(), src, 0, testvideo.FaceOptions{Duration: 8 * time.Second, Silent: true}); err != nil {
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
	for _, layout := range []string{LayoutCenter, LayoutFollow, LayoutFit, LayoutSplit} {
		b.Run(layout, func(b *testing.B) {
			opts := RenderOptions{Aspect: "portrait", Layout: layout, Shots: a.Shots, Follow: a.Follow, Source: info}
			for b.Loop() {
				if _, err := RenderClip(context.Background(), src, Highlight{Start: 1, End: 7, CenterX: 0.5}, filepath.Join(dir, "e.mp4"), filepath.Join(dir, "p.mp4"), opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
