package faces

import (
	"image"
	"image/draw"
	_ "image/jpeg" // sample.jpg
	"math"
	"os"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
)

// sampleGray is pigo's sample.jpg (a real face, 320x400) in gray.
func sampleGray(t testing.TB) ([]byte, int, int) {
	t.Helper()
	path, err := testvideo.SampleFace()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	gray := image.NewGray(image.Rect(0, 0, w, h))
	draw.Draw(gray, gray.Bounds(), img, b.Min, draw.Src)
	return gray.Pix, w, h
}

func TestDetectFindsTheSampleFace(t *testing.T) {
	g, w, h := sampleGray(t)
	got := Detect(g, w, h)
	if len(got) != 1 {
		t.Fatalf("%d faces %v, want 1", len(got), got)
	}
	// The face is centred horizontally, its eyes at 46% and its mouth at 71% of the height.
	f := got[0]
	if math.Abs(f.X-float64(w)/2) > 0.05*float64(w) || f.Y < 0.4*float64(h) || f.Y > 0.6*float64(h) ||
		f.Size < 0.45*float64(h) || f.Size > 0.7*float64(h) || f.Q < minQuality {
		t.Errorf("face %+v, want centred, about 0.55 of the %dx%d image high", f, w, h)
	}
}

func TestDetectFindsTheSampleFaceSmall(t *testing.T) {
	g, w, h := sampleGray(t)
	// Pasted at a quarter size into a 320x180 gray frame, as the analysis sees a wide shot.
	const fw, fh = 320, 180
	frame := make([]byte, fw*fh)
	for i := range frame {
		frame[i] = 90
	}
	sw, sh := w/4, h/4
	for y := range sh {
		for x := range sw {
			frame[(40+y)*fw+200+x] = g[(y*4)*w+x*4]
		}
	}
	got := Detect(frame, fw, fh)
	if len(got) != 1 {
		t.Fatalf("%d faces %v, want 1", len(got), got)
	}
	if cx := 200 + float64(sw)/2; math.Abs(got[0].X-cx) > 4 || math.Abs(got[0].Y-(40+float64(sh)/2)) > 6 {
		t.Errorf("face at %.0f,%.0f, want about %.0f,%.0f", got[0].X, got[0].Y, cx, 40+float64(sh)/2)
	}
}

func TestDetectFindsNothingInABlankFrame(t *testing.T) {
	for _, v := range []byte{0, 128, 255} {
		frame := make([]byte, 320*180)
		for i := range frame {
			frame[i] = v
		}
		if got := Detect(frame, 320, 180); len(got) != 0 {
			t.Errorf("flat %d: %d faces %v", v, len(got), got)
		}
	}
	if got := Detect(make([]byte, 10), 320, 180); got != nil {
		t.Errorf("short buffer: %v", got)
	}
}
