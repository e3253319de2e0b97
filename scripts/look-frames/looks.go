package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// The caption looks, the visual hook and the emoji (#20 items 2, 3, 5): each drawn over a
// generated busy picture (ffmpeg's testsrc2), as clipperd renders them.
func init() {
	words := []media.CaptionWord{{Text: "the", Start: 0.2, End: 0.5}, {Text: "garden", Start: 0.5, End: 1.0},
		{Text: "needs", Start: 1.0, End: 1.5}, {Text: "more", Start: 1.5, End: 1.9}, {Text: "water", Start: 1.9, End: 2.6}}
	line := []media.CaptionLine{{Start: 0.1, End: 2.8, Words: words}}
	for _, name := range []string{media.LookClassic, media.LookBox, media.LookKaraoke, media.LookPop, media.LookOneWord} {
		looks = append(looks, look{name: "caption-" + name, make: func(ctx context.Context, work string) (string, float64, error) {
			st := media.CaptionStyle{Look: name, Bold: true, BoxColor: "#1E3A8A"}
			return renderLook(ctx, work, media.RenderOptions{Captions: &media.Captions{Lines: line, Style: st}}, 1.2)
		}})
	}
	looks = append(looks,
		look{name: "hook", make: func(ctx context.Context, work string) (string, float64, error) {
			hk := &media.Hook{Text: "Seven garden secrets nobody tells you", Font: "Liberation Sans", BoxColor: "#B91C1C"}
			return renderLook(ctx, work, media.RenderOptions{Hook: hk, Captions: &media.Captions{Lines: line}}, 1.2)
		}},
		look{name: "emoji", make: func(ctx context.Context, work string) (string, float64, error) {
			return renderLook(ctx, work, media.RenderOptions{Emoji: &media.Emoji{Words: words},
				Captions: &media.Captions{Lines: line}}, 2.1)
		}},
	)
}

// renderLook renders 3 s of a generated testsrc2 picture as a portrait clip with opts.
func renderLook(ctx context.Context, work string, opts media.RenderOptions, at float64) (string, float64, error) {
	src := filepath.Join(work, "src.mp4")
	cmd := toolexec.Command(ctx, "ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=25,format=yuv420p",
		"-t", "3", "-c:v", "libx264", "-preset", "ultrafast", toolexec.LocalURL(src))
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", 0, fmt.Errorf("source: %w: %s", err, msg)
	}
	clip := filepath.Join(work, "clip.mp4")
	opts.Aspect, opts.Layout, opts.PreviewHeight = "portrait", media.LayoutCenter, 240
	_, err := media.RenderClip(ctx, src, media.Highlight{Start: 0, End: 3, CenterX: 0.5}, clip, filepath.Join(work, "clip.preview.mp4"), opts)
	return clip, at, err
}
