// Command look-frames makes the service-behaviour guide's pictures of what renderPref
// draws besides the layouts (scripts/layout-frames): one PNG per look, each a frame of
// a clip rendered by clipperd's own render from generated media (nothing downloaded).
// Each feature's file in this directory adds its looks to looks in an init function.
//
//	go run ./scripts/look-frames -out assets/looks [-only NAME,...]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// look is one picture: make renders a clip in work (a directory of its own) and
// returns the clip and the second of it to show.
type look struct {
	name string // the PNG's name, without .png
	make func(ctx context.Context, work string) (clip string, at float64, err error)
}

// looks are added by the features' files.
var looks []look

func main() {
	out := flag.String("out", "assets/looks", "directory of the PNGs to write (one per look)")
	only := flag.String("only", "", "comma-separated names of the looks to make (default: all)")
	flag.Parse()
	if err := run(context.Background(), *out, *only); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out, only string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	want := strings.Split(only, ",")
	for _, l := range looks {
		if only != "" && !slices.Contains(want, l.name) {
			continue
		}
		work, err := os.MkdirTemp("", "look-frames-")
		if err != nil {
			return err
		}
		clip, at, err := l.make(ctx, work)
		if err == nil {
			err = frame(ctx, clip, at, out+"/"+l.name+".png")
		}
		_ = os.RemoveAll(work)
		if err != nil {
			return fmt.Errorf("%s: %w", l.name, err)
		}
		fmt.Println("wrote", out+"/"+l.name+".png")
	}
	return nil
}

// frame writes the frame at second at of clip as png, a quarter of a portrait
// export's size (270 wide; other aspects keep theirs).
func frame(ctx context.Context, clip string, at float64, png string) error {
	// -bitexact: the same render gives the same file, so the pictures only change
	// when the looks do.
	cmd := toolexec.Command(ctx, "ffmpeg", "-nostdin", "-v", "error", "-y", "-ss", fmt.Sprint(at), "-i", toolexec.LocalURL(clip),
		"-frames:v", "1", "-vf", "scale=270:-2", "-fflags", "+bitexact", "-flags:v", "+bitexact", toolexec.LocalURL(png))
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("frame at %gs: %w: %s", at, err, msg)
	}
	return nil
}
