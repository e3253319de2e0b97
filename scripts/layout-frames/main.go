// Command layout-frames makes the service-behaviour guide's pictures of the layouts: it
// generates the face videos of package testvideo (pigo's sample face, nothing
// downloaded), analyses each with clipperd's analysis pass, renders a portrait clip in
// each layout and saves one frame of it, a quarter of the export's size, as a PNG.
//
//	go run ./scripts/layout-frames -out assets/layouts
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// frame is one picture: a layout rendered from a face video, the frame taken at second at
// of the clip (which starts at second start of the source).
type frame struct {
	layout, video string
	start, at     float64
}

var frames = []frame{
	{media.LayoutFollow, "moving", 0, 1},
	{media.LayoutCenter, "moving", 0, 1},
	{media.LayoutFit, "two", 2, 1},
	{media.LayoutSplit, "two", 2, 1},
	{media.LayoutThree, "three", 2, 1},
	{media.LayoutFour, "four", 2, 1},
	{media.LayoutScreen, "screen", 2, 1},
	{media.LayoutGame, "screen", 2, 1},
}

func main() {
	out := flag.String("out", "assets/layouts", "directory of the PNGs to write (one per layout)")
	flag.Parse()
	if err := run(context.Background(), *out); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "layout-frames-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	opts := testvideo.FaceOptions{Duration: 8 * time.Second, Silent: true}
	gens := map[string]func(path string) (*testvideo.FaceLayout, error){
		"moving": func(p string) (*testvideo.FaceLayout, error) { return testvideo.MovingFace(ctx, p, opts) },
		"two":    func(p string) (*testvideo.FaceLayout, error) { return testvideo.TwoFaces(ctx, p, 0, opts) },
		"three":  func(p string) (*testvideo.FaceLayout, error) { return testvideo.GroupOfFaces(ctx, p, 3, opts) },
		"four":   func(p string) (*testvideo.FaceLayout, error) { return testvideo.GroupOfFaces(ctx, p, 4, opts) },
		"screen": func(p string) (*testvideo.FaceLayout, error) { return testvideo.ScreenWithFace(ctx, p, opts) },
	}
	analyses := map[string]*media.Analysis{}
	for _, f := range frames {
		src := filepath.Join(work, f.video+".mp4")
		a, ok := analyses[f.video]
		if !ok {
			if _, err := gens[f.video](src); err != nil {
				return err
			}
			if a, err = media.Analyze(ctx, src); err != nil {
				return fmt.Errorf("analyse %s: %w", f.video, err)
			}
			analyses[f.video] = a
		}
		exp, pre := filepath.Join(work, "clip-"+f.layout+".mp4"), filepath.Join(work, "clip-"+f.layout+".preview.mp4")
		h := media.Highlight{Start: f.start, End: f.start + 2, CenterX: 0.5}
		ro := media.RenderOptions{Aspect: "portrait", Layout: f.layout, Shots: a.Shots, Follow: a.Follow}
		if _, err := media.RenderClip(ctx, src, h, exp, pre, ro); err != nil {
			return fmt.Errorf("render %s: %w", f.layout, err)
		}
		png := filepath.Join(out, f.layout+".png")
		// -bitexact: the same render gives the same file, so the pictures only change
		// when the layouts do.
		cmd := toolexec.Command(ctx, "ffmpeg", "-nostdin", "-v", "error", "-y", "-ss", fmt.Sprint(f.at), "-i", toolexec.LocalURL(exp),
			"-frames:v", "1", "-vf", "scale=270:480", "-fflags", "+bitexact", "-flags:v", "+bitexact", toolexec.LocalURL(png))
		if msg, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("frame of %s: %w: %s", f.layout, err, msg)
		}
		fmt.Println("wrote", png)
	}
	return nil
}
