package media

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// lookBackgrounds are the pictures captions must read on: light, dark and busy.
var lookBackgrounds = map[string]string{
	"white":    "color=c=white:s=640x360:r=25",
	"black":    "color=c=black:s=640x360:r=25",
	"testsrc2": "testsrc2=s=640x360:r=25",
}

// backgroundSource is a 3 s video of the named background in a directory of t's.
func backgroundSource(t *testing.T, name string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), name+".mp4")
	out, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", lookBackgrounds[name]+",format=yuv420p",
		"-t", "3", "-c:v", "libx264", "-preset", "ultrafast", f).CombinedOutput()
	if err != nil {
		t.Fatalf("make %s background: %v: %s", name, err, out)
	}
	return f
}

// grayFrameAt decodes the frame at second at of clip as 8-bit gray.
func grayFrameAt(t *testing.T, clip string, at float64) ([]byte, int, int) {
	t.Helper()
	p := probeFile(t, clip)
	out, err := exec.Command("ffmpeg", "-v", "error", "-ss", fmt.Sprint(at), "-i", clip, "-frames:v", "1",
		"-f", "rawvideo", "-pix_fmt", "gray", "pipe:1").Output()
	if err != nil || len(out) != p.Width*p.Height {
		t.Fatalf("decode %s at %gs: %v (%d bytes)", clip, at, err, len(out))
	}
	return out, p.Width, p.Height
}

// ocrDrawn reads what tesseract finds where clip's frame at second at differs from plain's
// (the same render without the text): the region a viewer's eye goes to, as drawn, with
// no clean-up that knows the text's colours.
func ocrDrawn(t *testing.T, clip, plain string, at float64) string {
	t.Helper()
	got, w, h := grayFrameAt(t, clip, at)
	ref, _, _ := grayFrameAt(t, plain, at)
	x0, y0, x1, y1 := w, h, -1, -1
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if absDiff(got[y*w+x], ref[y*w+x]) > 24 {
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
		}
	}
	if x1 < 0 {
		return ""
	}
	const pad = 24
	x0, y0, x1, y1 = max(0, x0-pad), max(0, y0-pad), min(w, x1+pad+1), min(h, y1+pad+1)
	pgm := filepath.Join(t.TempDir(), "drawn.pgm")
	body := append([]byte(fmt.Sprintf("P5\n%d %d\n255\n", x1-x0, y1-y0)), region(got, w, x0, y0, x1, y1)...)
	if err := os.WriteFile(pgm, body, 0o600); err != nil {
		t.Fatal(err)
	}
	// Page segmentation as a block of lines (6), and as one word (8): tesseract finds no
	// text block in a lone inverted word however plain it is drawn.
	var read []string
	for _, psm := range []string{"6", "8"} {
		out, err := exec.Command("tesseract", pgm, "stdout", "--psm", psm).Output()
		if err != nil {
			t.Fatalf("tesseract: %v", err)
		}
		read = append(read, strings.Fields(string(out))...)
	}
	return strings.ToUpper(strings.Join(read, " "))
}

// renderLook renders 2.4 s of src as a portrait clip with opts and returns the export.
func renderLook(t *testing.T, src string, opts RenderOptions) string {
	t.Helper()
	dir := t.TempDir()
	exp, pre := filepath.Join(dir, "c.mp4"), filepath.Join(dir, "c.preview.mp4")
	opts.Aspect, opts.Layout, opts.PreviewHeight = "portrait", LayoutCenter, 240
	if _, err := renderFast(context.Background(), src, Highlight{Start: 0, End: 2.4, CenterX: 0.5}, exp, pre, opts); err != nil {
		t.Fatal(err)
	}
	return exp
}

// Every caption look reads back by OCR in every clip, on a white, a black and a busy
// (testsrc2) picture: each spoken word is read in the frame taken while it is spoken.
func TestCaptionLooksReadable(t *testing.T) {
	t.Parallel()
	toolexectest.RequireTools(t, "tesseract")
	requireFFmpeg(t)
	words := []CaptionWord{{"garden", 0.2, 0.8}, {"needs", 0.8, 1.4}, {"water", 1.4, 2.0}}
	line := CaptionLine{Start: 0.1, End: 2.1, Words: words}
	looks := []string{LookClassic, LookBox, LookKaraoke, LookPop, LookOneWord}
	// The backgrounds, and each rendered without text, shared by the looks' subtests.
	srcs, plains := map[string]string{}, map[string]string{}
	for bg := range lookBackgrounds {
		srcs[bg] = backgroundSource(t, bg)
		plains[bg] = renderLook(t, srcs[bg], RenderOptions{})
	}
	misses := 0
	for _, look := range looks {
		for _, bg := range []string{"white", "black", "testsrc2"} {
			t.Run(look+"/"+bg, func(t *testing.T) {
				capt := &Captions{Lines: []CaptionLine{line}, Style: CaptionStyle{Look: look, Bold: true, BoxColor: "#202020"}}
				exp := renderLook(t, srcs[bg], RenderOptions{Captions: capt})
				plain := plains[bg]
				// Every word must be read in the clip: in the frame taken while it is
				// spoken, or (when there OCR misreads it) in another frame of the clip.
				var read []string
				all := ""
				for _, w := range words {
					text := ocrDrawn(t, exp, plain, (w.Start+w.End)/2)
					all += " " + text
					read = append(read, fmt.Sprintf("%.1fs %q", (w.Start+w.End)/2, text))
				}
				for _, w := range words {
					if !strings.Contains(all, strings.ToUpper(w.Text)) {
						misses++
						t.Errorf("look %s on %s: OCR never read %q in the clip: %s", look, bg, w.Text, strings.Join(read, "; "))
					}
				}
				t.Logf("look %-8s on %-8s: %s", look, bg, strings.Join(read, "; "))
			})
		}
	}
	t.Logf("%d of %d words missed", misses, len(looks)*3*len(words))
}
