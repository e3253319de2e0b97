package media

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/faces"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// These tests render the face videos of package testvideo (pigo's sample face) and find
// the faces in the rendered frames with pigo (package faces), as a viewer would see them.

// faceVideo makes one of the face videos in the test's temporary directory.
func faceVideo(t *testing.T, name string) (string, *testvideo.FaceLayout) {
	t.Helper()
	requireFFmpeg(t)
	path := filepath.Join(t.TempDir(), name+".mp4")
	ctx := context.Background()
	opts := testvideo.FaceOptions{Duration: 6 * time.Second, Silent: true}
	gens := map[string]func() (*testvideo.FaceLayout, error){
		"moving": func() (*testvideo.FaceLayout, error) { return testvideo.MovingFace(ctx, path, opts) },
		"cut":    func() (*testvideo.FaceLayout, error) { return testvideo.FaceCut(ctx, path, opts) },
		"two":    func() (*testvideo.FaceLayout, error) { return testvideo.TwoFaces(ctx, path, -1, opts) },
		"three":  func() (*testvideo.FaceLayout, error) { return testvideo.GroupOfFaces(ctx, path, 3, opts) },
		"four":   func() (*testvideo.FaceLayout, error) { return testvideo.GroupOfFaces(ctx, path, 4, opts) },
		"screen": func() (*testvideo.FaceLayout, error) { return testvideo.ScreenWithFace(ctx, path, opts) },
	}
	l, err := gens[name]()
	if err != nil {
		t.Fatalf("face video %s: %v", name, err)
	}
	return path, l
}

// truthShots are the generator's shots as the analysis reports them: faces at their
// place in the shot's middle, largest first.
func truthShots(l *testvideo.FaceLayout) []Shot {
	var out []Shot
	for _, s := range l.Shots {
		var fs []FaceBox
		for _, f := range l.FacesAt((s.Start + s.End) / 2) {
			fs = append(fs, FaceBox{X: f.X, Y: f.Y, Size: f.Size})
		}
		slices.SortStableFunc(fs, func(a, b FaceBox) int { return -cmpFloat(a.Size, b.Size) })
		out = append(out, Shot{Start: s.Start, End: s.End, Faces: fs, Speaker: -1})
	}
	return out
}

// detectedFollow is the follow path package faces makes from pigo's detections in the
// source (5 samples a second at 256x144, the shots between the generator's cuts): what
// the analysis pass computes.
func detectedFollow(t *testing.T, path string, l *testvideo.FaceLayout) []PathKey {
	t.Helper()
	const fps, w, h = 5.0, 256, 144
	var samples []faces.Sample
	for i, fr := range grayFrames(t, path, fps, w, h) {
		samples = append(samples, faces.Sample{T: float64(i) / fps, Faces: faces.Detect(fr, w, h)})
	}
	shots := faces.Shots(samples, l.Cuts(), l.Duration, w, h)
	var out []PathKey
	for _, p := range faces.Follow(shots, func(float64, float64) float64 { return 0.5 }) {
		out = append(out, PathKey{T: p.T, X: p.X})
	}
	if len(out) == 0 {
		t.Fatal("no follow path: pigo found no face in the source")
	}
	return out
}

// grayFrames decodes path at fps (0: every frame), scaled to w x h gray.
func grayFrames(t *testing.T, path string, fps float64, w, h int) [][]byte {
	t.Helper()
	vf := fmt.Sprintf("scale=%d:%d,format=gray", w, h)
	if fps > 0 {
		vf = fmt.Sprintf("fps=%g,", fps) + vf
	}
	out, err := toolexec.Command(context.Background(), "ffmpeg", "-nostdin", "-v", "error", "-i", toolexec.LocalURL(path),
		"-vf", vf, "-f", "rawvideo", "pipe:1").Output()
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	var frames [][]byte
	for len(out) >= w*h {
		frames = append(frames, out[:w*h])
		out = out[w*h:]
	}
	return frames
}

// renderFaces renders src's [start, end) with opts and returns the export's frames at
// fps (0: all), a quarter of the export's size in each direction, and that size.
func renderFaces(t *testing.T, src string, start, end float64, opts RenderOptions, fps float64) ([][]byte, int, int) {
	t.Helper()
	dir := t.TempDir()
	exp, pre := filepath.Join(dir, "e.mp4"), filepath.Join(dir, "p.mp4")
	opts.PreviewHeight = 240
	if _, err := renderFast(context.Background(), src, Highlight{Start: start, End: end, CenterX: 0.5}, exp, pre, opts); err != nil {
		t.Fatal(err)
	}
	size := aspectSizes[opts.Aspect]
	w, h := size[0]/4, size[1]/4
	return grayFrames(t, exp, fps, w, h), w, h
}

// A face moving from the left third to the right third stays in the middle 60% of the
// portrait frame when the crop follows it; the fixed centre crop (skipReframe) loses it.
// The window never pans faster than faces.MaxPanSpeed.
func TestRenderFollowKeepsAMovingFaceInTheMiddle(t *testing.T) {
	t.Parallel()
	src, l := faceVideo(t, "moving")
	path := detectedFollow(t, src, l)
	share := func(layout string) (float64, [][]byte, int, int) {
		frames, w, h := renderFaces(t, src, 0, l.Duration, RenderOptions{Aspect: "portrait", Layout: layout, Follow: path}, 0)
		in := 0
		for _, fr := range frames {
			if fs := faces.Detect(fr, w, h); len(fs) == 1 && math.Abs(fs[0].X/float64(w)-0.5) <= 0.3 {
				in++
			}
		}
		return float64(in) / float64(len(frames)), frames, w, h
	}
	follow, frames, w, h := share(LayoutFollow)

	center, _, _, _ := share(LayoutCenter)
	t.Logf("face in the middle 60%%: follow %.0f%% of %d frames, centre crop %.0f%%", 100*follow, len(frames), 100*center)
	if follow < 0.9 {
		t.Errorf("follow: the face is in the middle 60%% of the width in %.0f%% of the frames, want at least 90%%", 100*follow)
	}
	if center >= 0.9 {
		t.Errorf("centre crop: the face is in the middle 60%% in %.0f%% of the frames; the test's face should leave it", 100*center)
	}
	// Where the window is, frame by frame: the face's place in the source less its
	// place in the crop (a crop of a 16:9 source for 9:16 is 0.316 of its width).
	cropW := float64(evenRound(720*1080.0/1920)) / 1280
	wins := windowPlaces(frames, w, h, cropW, l)
	// Over half a second, so the detector's jitter (a pixel or two of the 270-wide
	// frame, 0.01 of the source width) does not read as speed.
	const span = 12
	jitter := 3 * cropW / float64(w)
	for i := 0; i+span < len(wins); i++ {
		d := math.Abs(wins[i+span] - wins[i])
		if dt := float64(span) / 25; !math.IsNaN(d) && d-jitter > faces.MaxPanSpeed*dt {
			t.Errorf("frames %d-%d: the window moved %.3f of the width in %.2fs, faster than %.2f/s", i, i+span, d, dt, faces.MaxPanSpeed)
		}
	}
}

// windowPlaces is the left edge of the crop window (0..1 of the source width) in each
// frame, from the one face found in it and where the source had it; NaN where pigo does
// not find exactly one face.
func windowPlaces(frames [][]byte, w, h int, cropW float64, l *testvideo.FaceLayout) []float64 {
	var wins []float64
	for i, fr := range frames {
		fs := faces.Detect(fr, w, h)
		if len(fs) != 1 {
			wins = append(wins, math.NaN())
			continue
		}
		wins = append(wins, l.FacesAt(float64(i) / 25)[0].X-fs[0].X/float64(w)*cropW)
	}
	return wins
}

// At a cut the window jumps to the new shot's face within 2 frames of the cut, and does
// not move anywhere else.
func TestRenderFollowJumpsAtTheCut(t *testing.T) {
	t.Parallel()
	src, l := faceVideo(t, "cut")
	path := detectedFollow(t, src, l)
	frames, w, h := renderFaces(t, src, 0, l.Duration, RenderOptions{Aspect: "portrait", Layout: LayoutFollow, Follow: path}, 0)
	cropW := float64(evenRound(720*1080.0/1920)) / 1280
	cut := l.Cuts()[0]
	wins := windowPlaces(frames, w, h, cropW, l)
	jumpAt := -1
	for i := 1; i < len(wins); i++ {
		d := math.Abs(wins[i] - wins[i-1])
		if math.IsNaN(d) || d < 3*cropW/float64(w) {
			continue
		}
		if d > 0.1 && jumpAt < 0 {
			jumpAt = i
			continue
		}
		t.Errorf("frame %d: the window moved %.3f of the width outside the cut", i, d)
	}
	cutFrame := int(math.Round(cut * 25))
	if jumpAt < 0 || abs(jumpAt-cutFrame) > 2 {
		t.Errorf("the window jumped at frame %d, want within 2 frames of the cut at frame %d", jumpAt, cutFrame)
	}
}

func abs(v int) int { return max(v, -v) }

// Each panel layout shows every face once, in its documented panel (panelRects), on
// portrait, square and landscape frames; screen and game show the face camera only in
// the face panel.
func TestRenderPanelLayoutsPlaceEachFaceOnce(t *testing.T) {
	t.Parallel()
	cases := []struct {
		layout, video string
	}{
		{LayoutSplit, "two"}, {LayoutThree, "three"}, {LayoutFour, "four"}, {LayoutScreen, "screen"}, {LayoutGame, "screen"},
	}
	type video struct {
		path   string
		layout *testvideo.FaceLayout
	}
	videos := map[string]video{}
	for _, c := range cases {
		if _, ok := videos[c.video]; !ok {
			p, l := faceVideo(t, c.video)
			videos[c.video] = video{p, l}
		}
	}
	for _, c := range cases {
		for _, aspect := range []string{"portrait", "square", "landscape"} {
			t.Run(c.layout+"/"+aspect, func(t *testing.T) {
				src, l := videos[c.video].path, videos[c.video].layout
				shots := truthShots(l)
				frames, w, h := renderFaces(t, src, 2, 3, RenderOptions{Aspect: aspect, Layout: c.layout, Shots: shots}, 2)
				lay := resolveLayout(c.layout, shots[0].Faces, false, 0.5)
				if lay.kind != c.layout {
					t.Fatalf("the shot's faces give layout %s, want %s", lay.kind, c.layout)
				}
				rects := panelRects(c.layout, aspectSizes[aspect])
				want := rects // one face in each panel
				if c.layout == LayoutScreen || c.layout == LayoutGame {
					want = rects[1:] // the face panel only
				}
				for i, fr := range frames {
					found := faces.Detect(fr, w, h)
					if len(found) != len(want) {
						t.Errorf("frame %d: %d faces found at %v, want %d", i, len(found), boxesText(found, w, h), len(want))
						continue
					}
					for _, r := range want {
						n := 0
						for _, f := range found {
							if x, y := f.X*4, f.Y*4; x >= float64(r.x) && x < float64(r.x+r.w) && y >= float64(r.y) && y < float64(r.y+r.h) {
								n++
							}
						}
						if n != 1 {
							t.Errorf("frame %d: panel %+v holds %d faces (found %v), want 1", i, r, n, boxesText(found, w, h))
						}
					}
				}
			})
		}
	}
}

func boxesText(bs []faces.Box, w, h int) string {
	s := ""
	for _, b := range bs {
		s += fmt.Sprintf("(%.2f,%.2f size %.2f) ", b.X/float64(w), b.Y/float64(h), b.Size/float64(h))
	}
	return s
}

// A clip spanning shots lays each shot out with its own faces, in one render: here the
// two-face video with its first half taken for a two-face shot and the rest for a shot
// without faces (split, then fit), cut into two pieces as filler removal does.
func TestRenderLayoutChangesAtShotBounds(t *testing.T) {
	t.Parallel()
	src, l := faceVideo(t, "two")
	faces2 := truthShots(l)[0].Faces
	shots := []Shot{{Start: 0, End: 3, Faces: faces2, Speaker: -1}, {Start: 3, End: l.Duration, Faces: nil, Speaker: -1}}
	keep := []Interval{{1, 2}, {2.5, 4.5}} // clip time: 0-1 and 1-1.5 split, 1.5-3 fit
	frames, w, h := renderFaces(t, src, 1, 4.5, RenderOptions{Aspect: "portrait", Layout: LayoutAuto, Shots: shots, Keep: keep}, 4)
	if len(frames) < 10 {
		t.Fatalf("%d frames, want about 12", len(frames))
	}
	top, bottom := panelRects(LayoutSplit, aspectSizes["portrait"])[0], panelRects(LayoutSplit, aspectSizes["portrait"])[1]
	for i, fr := range frames {
		tm := float64(i) / 4
		found := faces.Detect(fr, w, h)
		switch {
		case tm < 1.4:
			// Split: one face in each half.
			if len(found) != 2 || (found[0].Y*4 < float64(top.h)) == (found[1].Y*4 < float64(top.h)) {
				t.Errorf("%.2fs: faces %v, want one in the top half (%+v) and one in the bottom (%+v)", tm, boxesText(found, w, h), top, bottom)
			}
		case tm > 1.6:
			// Fit: both faces side by side in the middle band.
			if len(found) != 2 || math.Abs(found[0].Y-found[1].Y) > 0.05*float64(h) || math.Abs(found[0].Y/float64(h)-0.5) > 0.1 {
				t.Errorf("%.2fs: faces %v, want two side by side in the middle (fit)", tm, boxesText(found, w, h))
			}
		}
	}
}

// The analysis pass feeds the render: Analyze's follow path keeps the moving face in the
// middle of the portrait frame with no layout named, and its shots give LayoutAuto a
// split of the two-face video.
func TestAnalyzeThenRenderFollowsAndSplits(t *testing.T) {
	t.Parallel()
	src, _ := faceVideo(t, "moving")
	a, err := Analyze(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	frames, w, h := renderFaces(t, src, 0, a.DurationSec, RenderOptions{Aspect: "portrait", Shots: a.Shots, Follow: a.Follow}, 5)
	in := 0
	for _, fr := range frames {
		if fs := faces.Detect(fr, w, h); len(fs) == 1 && math.Abs(fs[0].X/float64(w)-0.5) <= 0.3 {
			in++
		}
	}
	if share := float64(in) / float64(len(frames)); share < 0.9 {
		t.Errorf("Analyze's path: the face is in the middle 60%% in %.0f%% of %d frames, want at least 90%%", 100*share, len(frames))
	}

	src, _ = faceVideo(t, "two")
	if a, err = Analyze(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	frames, w, h = renderFaces(t, src, 2, 3, RenderOptions{Aspect: "portrait", Layout: LayoutAuto, Shots: a.Shots, Follow: a.Follow}, 2)
	for i, fr := range frames {
		if fs := faces.Detect(fr, w, h); len(fs) != 2 || (fs[0].Y < float64(h)/2) == (fs[1].Y < float64(h)/2) {
			t.Errorf("frame %d: faces %v, want one in each half (auto: two faces split)", i, boxesText(fs, w, h))
		}
	}
}
