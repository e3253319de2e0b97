package media

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
)

func TestRenderClipAspects(t *testing.T) {
	t.Parallel()
	src, _ := sourceVideo(t, 60, 320, 240)
	dir := t.TempDir()
	h := Highlight{Start: 12.34, End: 14.84, CenterX: 0.7}
	for aspect, want := range map[string][4]int{
		"portrait":  {1080, 1920, 270, 480},
		"square":    {1080, 1080, 360, 360},
		"landscape": {1920, 1080, 426, 240},
	} {
		t.Run(aspect, func(t *testing.T) {
			exp, pre := filepath.Join(dir, aspect+".mp4"), filepath.Join(dir, aspect+"-preview.mp4")
			opts := RenderOptions{Aspect: aspect}
			if aspect != "portrait" {
				opts.PreviewHeight = want[3] // portrait checks the default
			}
			res, err := RenderClip(context.Background(), src, h, exp, pre, opts)
			if err != nil {
				t.Fatal(err)
			}
			pe, pp := probeFile(t, exp), probeFile(t, pre)
			if pe.Width != want[0] || pe.Height != want[1] {
				t.Errorf("export %dx%d, want %dx%d", pe.Width, pe.Height, want[0], want[1])
			}
			if pp.Width != want[2] || pp.Height != want[3] {
				t.Errorf("preview %dx%d, want %dx%d", pp.Width, pp.Height, want[2], want[3])
			}
			if math.Abs(res.DurationSec-2.5) > 0.1 || math.Abs(pp.DurationSec-2.5) > 0.1 {
				t.Errorf("durations: export %.3f (reported %.3f), preview %.3f; want 2.5", pe.DurationSec, res.DurationSec, pp.DurationSec)
			}
			if res.ExportBytes != pe.SizeBytes || res.PreviewBytes != pp.SizeBytes || res.PreviewBytes >= res.ExportBytes {
				t.Errorf("bytes: export %d (file %d), preview %d (file %d); want the preview smaller",
					res.ExportBytes, pe.SizeBytes, res.PreviewBytes, pp.SizeBytes)
			}
			for _, p := range []*ProbeResult{pe, pp} {
				if p.VideoCodec != "h264" || p.AudioCodec != "aac" {
					t.Errorf("codecs %s/%s, want h264/aac", p.VideoCodec, p.AudioCodec)
				}
			}
		})
	}
}

// A faster preset gives the same clip, in a larger file: the trade an
// operator makes with --encode-preset.
func TestRenderClipEncodePreset(t *testing.T) {
	t.Parallel()
	src, _ := sourceVideo(t, 60, 320, 240)
	dir := t.TempDir()
	h := Highlight{Start: 12, End: 15, CenterX: 0.5}
	bytes := map[string]int64{}
	for _, preset := range []string{"", "ultrafast"} {
		exp, pre := filepath.Join(dir, "e"+preset+".mp4"), filepath.Join(dir, "p"+preset+".mp4")
		res, err := RenderClip(context.Background(), src, h, exp, pre, RenderOptions{EncodePreset: preset})
		if err != nil {
			t.Fatalf("preset %q: %v", preset, err)
		}
		p := probeFile(t, exp)
		if p.Width != 1080 || p.Height != 1920 || p.VideoCodec != "h264" || math.Abs(p.DurationSec-3) > 0.1 {
			t.Errorf("preset %q: export %dx%d %s, %.3f s; want 1080x1920 h264, 3 s", preset, p.Width, p.Height, p.VideoCodec, p.DurationSec)
		}
		bytes[preset] = res.ExportBytes
	}
	if bytes["ultrafast"] <= bytes[""] {
		t.Errorf("export bytes: ultrafast %d, default (%s) %d; want ultrafast's larger", bytes["ultrafast"], DefaultEncodePreset, bytes[""])
	}
}

// The generated scenes show one box on a flat background; measuring the box in a rendered
// frame tells whether the crop followed the centre and whether fit shows the whole picture.
func TestRenderClipCropFollowsCentreAndFitShowsAll(t *testing.T) {
	t.Parallel()
	src, layout := sourceVideo(t, 60, 320, 240)
	var scene *testvideo.Scene
	for i, sc := range layout.Scenes {
		if math.Abs(sc.CenterX-0.5) > 0.2 && sc.End-sc.Start >= 4 {
			scene = &layout.Scenes[i]
			break
		}
	}
	if scene == nil {
		t.Fatal("generated layout has no long off-centre scene")
	}
	h := Highlight{Start: scene.Start + 1, End: scene.Start + 2, CenterX: scene.CenterX}
	dir := t.TempDir()
	render := func(name string, h Highlight, fit bool) (width, centre float64) {
		exp, pre := filepath.Join(dir, name+".mp4"), filepath.Join(dir, name+"-p.mp4")
		if _, err := RenderClip(context.Background(), src, h, exp, pre, RenderOptions{Aspect: "portrait", Fit: fit, PreviewHeight: 480}); err != nil {
			t.Fatal(err)
		}
		img, w, hgt := firstFrameGray(t, pre)
		// The box bobs up and down; in both modes it crosses the middle band of the frame,
		// which in fit mode is all foreground.
		for y := hgt * 3 / 10; y < hgt*7/10; y++ {
			if bw, bc := boxSpan(img[y*w : (y+1)*w]); bw > width {
				width, centre = bw, bc
			}
		}
		t.Logf("%s: box spans %.2f of the width, centred at %.2f", name, width, centre)
		return width, centre
	}
	w, c := render("crop", h, false)
	if w < 0.3 || math.Abs(c-0.5) > 0.2 {
		t.Errorf("crop around %.2f: box spans %.2f of the width centred at %.2f; want a large box near the middle", h.CenterX, w, c)
	}
	h.CenterX = 1 - h.CenterX // the other side: the box leaves the crop
	if w, c := render("wrong", h, false); w > 0.05 {
		t.Errorf("crop around %.2f: box still spans %.2f centred at %.2f; want it out of view", h.CenterX, w, c)
	}
	w, c = render("fit", h, true)
	if w < 0.1 || w > 0.25 || math.Abs(c-scene.CenterX) > 0.1 {
		t.Errorf("fit: box spans %.2f centred at %.2f; want about 1/6 of the width near %.2f", w, c, scene.CenterX)
	}
}

func TestRenderClipWatermark(t *testing.T) {
	t.Parallel()
	src, _ := sourceVideo(t, 60, 320, 240)
	dir := filepath.Join(t.TempDir(), "it's a [dir], with: odd; chars")
	h := Highlight{Start: 30, End: 31, CenterX: 0.5}
	corner := func(name, mark string) (bottomRight, topLeft []byte) {
		exp, pre := filepath.Join(dir, name+".mp4"), filepath.Join(dir, name+"-p.mp4")
		if err := mkdir(dir); err != nil {
			t.Fatal(err)
		}
		if _, err := RenderClip(context.Background(), src, h, exp, pre, RenderOptions{Aspect: "square", Watermark: mark, PreviewHeight: 360}); err != nil {
			t.Fatal(err)
		}
		img, w, hgt := firstFrameGray(t, exp)
		return region(img, w, w*3/5, hgt*9/10, w, hgt), region(img, w, 0, 0, w*2/5, hgt/10)
	}
	plainBR, plainTL := corner("plain", "")
	markBR, markTL := corner("marked", "it's 100% {clipper}: a,b;[c] \\ %{pts}")
	if d := meanAbsDiff(plainBR, markBR); d < 3 {
		t.Errorf("bottom-right corner changed by %.2f on average: no visible watermark", d)
	}
	if d := meanAbsDiff(plainTL, markTL); d > 1 {
		t.Errorf("top-left corner changed by %.2f on average: the watermark is not confined to its corner", d)
	}
}

func TestRenderClipRejectsBadInput(t *testing.T) {
	t.Parallel()
	src, _ := sourceVideo(t, 60, 320, 240)
	dir := t.TempDir()
	exp, pre := filepath.Join(dir, "e.mp4"), filepath.Join(dir, "p.mp4")
	ok := Highlight{Start: 1, End: 3}
	cases := []struct {
		name     string
		h        Highlight
		exp, pre string
		opts     RenderOptions
		want     string
	}{
		{"aspect", ok, exp, pre, RenderOptions{Aspect: "vertical"}, `aspect "vertical"`},
		{"preview too tall", ok, exp, pre, RenderOptions{Aspect: "square", PreviewHeight: 2000}, "previewHeight 2000"},
		{"same outputs", ok, exp, exp, RenderOptions{}, "must be set and differ"},
		{"output is source", ok, src, pre, RenderOptions{}, "must not be the source"},
		{"reversed", Highlight{Start: 5, End: 4}, exp, pre, RenderOptions{}, "start < end"},
		{"past end", Highlight{Start: 58, End: 70}, exp, pre, RenderOptions{}, "outside the 60.000 s source"},
		{"watermark", ok, exp, pre, RenderOptions{Watermark: strings.Repeat("x", 201)}, "at most 200"},
		{"encode preset", ok, exp, pre, RenderOptions{EncodePreset: "fastest"}, `encode preset "fastest": want one of ultrafast,`},
	}
	for _, c := range cases {
		_, err := RenderClip(context.Background(), src, c.h, c.exp, c.pre, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
	// ffmpeg's own complaint reaches the caller (the preview's directory is
	// missing; the export's holds the render's temporary files).
	_, err := RenderClip(context.Background(), src, ok, exp, filepath.Join(dir, "missing", "p.mp4"), RenderOptions{})
	if err == nil || !strings.Contains(err.Error(), "No such file or directory") {
		t.Errorf("unwritable preview: error %v, want ffmpeg's message", err)
	}
	// A missing export directory fails before ffmpeg starts, naming it.
	_, err = RenderClip(context.Background(), src, ok, filepath.Join(dir, "missing", "e.mp4"), pre, RenderOptions{})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), filepath.Join(dir, "missing")) {
		t.Errorf("unwritable export: error %v, want the missing directory named", err)
	}
}

func probeFile(t *testing.T, path string) *ProbeResult {
	t.Helper()
	p, err := Probe(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// firstFrameGray decodes the first frame of path as 8-bit gray.
func firstFrameGray(t *testing.T, path string) ([]byte, int, int) {
	t.Helper()
	p := probeFile(t, path)
	var out, errOut bytes.Buffer
	cmd := exec.Command("ffmpeg", "-v", "error", "-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "pipe:1")
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil || out.Len() != p.Width*p.Height {
		t.Fatalf("decode %s: %v (%d bytes): %s", path, err, out.Len(), errOut.String())
	}
	return out.Bytes(), p.Width, p.Height
}

// boxSpan finds the run of pixels that differ from the row's first pixel (the background)
// and returns its width and centre as fractions of the row.
func boxSpan(row []byte) (width, centre float64) {
	first, last := -1, -1
	for x, v := range row {
		if absDiff(v, row[0]) > 40 {
			if first < 0 {
				first = x
			}
			last = x
		}
	}
	if first < 0 {
		return 0, math.NaN()
	}
	n := float64(len(row))
	return float64(last-first+1) / n, (float64(first+last) + 1) / 2 / n
}

func region(img []byte, stride, x0, y0, x1, y1 int) []byte {
	var out []byte
	for y := y0; y < y1; y++ {
		out = append(out, img[y*stride+x0:y*stride+x1]...)
	}
	return out
}

func meanAbsDiff(a, b []byte) float64 {
	sum := 0
	for i := range a {
		sum += absDiff(a[i], b[i])
	}
	return float64(sum) / float64(len(a))
}
