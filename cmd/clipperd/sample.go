package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
)

// sample writes a generated video with speech (festival's voice when
// installed, else espeak-ng) and scene cuts, a source to try clipperd with.
func sample(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sample", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "path of the MP4 to write (required)")
	dur := fs.Duration("duration", 90*time.Second, "length of the video")
	width := fs.Int("width", 1280, "frame width in pixels")
	height := fs.Int("height", 720, "frame height in pixels")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *out == "":
		return fmt.Errorf("%w: sample: --out is required", errUsage)
	case *dur < time.Second:
		return fmt.Errorf("%w: sample: --duration must be at least 1s, not %s", errUsage, *dur)
	case *width < 16 || *height < 16 || *width%2 != 0 || *height%2 != 0:
		return fmt.Errorf("%w: sample: --width and --height must be even and at least 16, not %dx%d", errUsage, *width, *height)
	}
	layout, err := testvideo.GenerateWithLayout(ctx, *out, testvideo.Options{Duration: *dur, Width: *width, Height: *height})
	if err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "wrote %s (%s, %dx%d, spoken by %s)\n", *out, *dur, *width, *height, layout.Voice)
	return err
}
