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

// smallFace is a 320x180 frame (the analysis size) of a textured background
// with the sample face pasted at a quarter size, its top-left at 200,40.
func smallFace(t testing.TB) (frame []byte, cx, cy float64) {
	g, w, h := sampleGray(t)
	const fw = 320
	frame = make([]byte, fw*180)
	for i := range frame {
		frame[i] = byte(60 + i*7%90)
	}
	sw, sh := w/4, h/4
	for y := range sh {
		for x := range sw {
			frame[(40+y)*fw+200+x] = g[(y*4)*w+x*4]
		}
	}
	return frame, 200 + float64(sw)/2, 40 + float64(sh)/2
}

func TestDetectFindsTheSampleFaceSmall(t *testing.T) {
	frame, cx, cy := smallFace(t)
	got := Detect(frame, 320, 180)
	if len(got) != 1 {
		t.Fatalf("%d faces %v, want 1", len(got), got)
	}
	if math.Abs(got[0].X-cx) > 4 || math.Abs(got[0].Y-cy) > 6 {
		t.Errorf("face at %.0f,%.0f, want about %.0f,%.0f", got[0].X, got[0].Y, cx, cy)
	}
}

func TestDetectNearFindsTheFaceWhereItWas(t *testing.T) {
	frame, cx, cy := smallFace(t)
	full := Detect(frame, 320, 180)
	if len(full) != 1 {
		t.Fatalf("%d faces %v, want 1", len(full), full)
	}
	// The previous sample had it 6 px to the left and a little smaller.
	prev := full[0]
	prev.X -= 6
	prev.Size *= 0.9
	got := DetectNear(frame, 320, 180, []Box{prev})
	if len(got) != 1 || math.Abs(got[0].X-cx) > 4 || math.Abs(got[0].Y-cy) > 6 || sizeRatio(got[0].Size, full[0].Size) > 1.25 {
		t.Errorf("near %+v: found %v, want the face at about %.0f,%.0f side %.0f", prev, got, cx, cy, full[0].Size)
	}
	// Searching where no face is finds none, and nothing to search near finds none.
	if got := DetectNear(frame, 320, 180, []Box{{X: 60, Y: 90, Size: 40}}); len(got) != 0 {
		t.Errorf("near an empty place: %v", got)
	}
	if got := DetectNear(frame, 320, 180, nil); len(got) != 0 {
		t.Errorf("near nothing: %v", got)
	}
	// At the frame's edge the search window is clipped, not out of bounds.
	if got := DetectNear(frame, 320, 180, []Box{{X: 318, Y: 178, Size: 60}}); len(got) != 0 {
		t.Errorf("at the corner: %v", got)
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
