package media

import (
	"math"
	"strings"
	"testing"
)

var (
	oneFace   = []FaceBox{{X: 0.5, Y: 0.45, Size: 0.4}}
	twoFaces  = []FaceBox{{X: 0.7, Y: 0.5, Size: 0.3}, {X: 0.3, Y: 0.5, Size: 0.28}} // largest first
	fourFaces = []FaceBox{{X: 0.2, Y: 0.3, Size: 0.2}, {X: 0.8, Y: 0.3, Size: 0.2}, {X: 0.2, Y: 0.75, Size: 0.2}, {X: 0.8, Y: 0.75, Size: 0.2}}
	camFace   = []FaceBox{{X: 0.88, Y: 0.82, Size: 0.16}} // a face camera in the bottom right corner
)

func TestResolveLayoutFallsBackToWhatTheShotHolds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		want    string
		faces   []FaceBox
		hasPath bool
		kind    string
		nfaces  int
	}{
		{LayoutSplit, twoFaces, true, LayoutSplit, 2},
		{LayoutSplit, fourFaces, true, LayoutSplit, 2},
		{LayoutSplit, oneFace, true, LayoutFollow, 0},
		{LayoutSplit, oneFace, false, LayoutCenter, 0}, // follow without a path: a crop on the face
		{LayoutSplit, nil, true, LayoutFit, 0},
		{LayoutThree, fourFaces, true, LayoutThree, 3},
		{LayoutThree, twoFaces, true, LayoutSplit, 2},
		{LayoutFour, fourFaces, true, LayoutFour, 4},
		{LayoutFour, fourFaces[:3], true, LayoutThree, 3},
		{LayoutFour, nil, false, LayoutFit, 0},
		{LayoutScreen, camFace, true, LayoutScreen, 1},
		{LayoutScreen, nil, true, LayoutFit, 0},
		{LayoutGame, twoFaces, true, LayoutGame, 1},
		{LayoutGame, nil, true, LayoutFit, 0},
		{LayoutCenter, oneFace, true, LayoutCenter, 0},
		{LayoutFit, oneFace, true, LayoutFit, 0},
		{LayoutFollow, nil, true, LayoutFollow, 0},
		{LayoutFollow, nil, false, LayoutCenter, 0},
		{LayoutAuto, nil, true, LayoutFit, 0},
		{LayoutAuto, oneFace, true, LayoutFollow, 0},
		{LayoutAuto, camFace, true, LayoutScreen, 1},
		{LayoutAuto, twoFaces, true, LayoutSplit, 2},
		{LayoutAuto, fourFaces[:3], true, LayoutThree, 3},
		{LayoutAuto, fourFaces, true, LayoutFour, 4},
		// A small face in the middle is a person far away, not a face camera.
		{LayoutAuto, []FaceBox{{X: 0.5, Y: 0.5, Size: 0.15}}, true, LayoutFollow, 0},
	}
	for _, c := range cases {
		got := resolveLayout(c.want, c.faces, c.hasPath, 0.4)
		if got.kind != c.kind || len(got.faces) != c.nfaces {
			t.Errorf("%s with %d faces (path %v): got %s with %d faces, want %s with %d", c.want, len(c.faces), c.hasPath, got.kind, len(got.faces), c.kind, c.nfaces)
		}
	}
	// Panels go left to right as in the source, whatever the size order.
	if p := resolveLayout(LayoutSplit, twoFaces, true, 0.5); p.faces[0].X > p.faces[1].X {
		t.Errorf("split faces %v: want left to right", p.faces)
	}
	// Centre without a path: on the largest face, else on the highlight's centre.
	if p := resolveLayout(LayoutFollow, twoFaces, false, 0.4); p.cx != 0.7 {
		t.Errorf("follow without a path centres on %.2f, want the largest face's 0.7", p.cx)
	}
	if p := resolveLayout(LayoutFollow, nil, false, 0.4); p.cx != 0.4 {
		t.Errorf("follow without a path or face centres on %.2f, want the highlight's 0.4", p.cx)
	}
}

func TestLayoutSegmentsPerShot(t *testing.T) {
	t.Parallel()
	shots := []Shot{
		{Start: 0, End: 10, Faces: twoFaces, Speaker: -1},
		{Start: 10, End: 20, Faces: oneFace, Speaker: -1},
		{Start: 20, End: 20.05, Faces: nil, Speaker: -1}, // a sliver: keeps the layout before it
		{Start: 20.05, End: 30, Faces: oneFace, Speaker: -1},
		{Start: 30, End: 40, Faces: nil, Speaker: -1},
	}
	path := []PathKey{{0, 0.3}, {10, 0.3}, {10, 0.5}, {40, 0.5}}
	// The clip plays 5-8 and 9-35 of the source.
	pieces := []Interval{{5, 8}, {9, 35}}
	segs, err := layoutSegments(pieces, RenderOptions{Layout: LayoutSplit, Shots: shots, Follow: path}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		c0, c1 float64
		kind   string
	}{
		{0, 4, LayoutSplit},   // 5-8 and 9-10: both in the two-face shot, one run
		{4, 24, LayoutFollow}, // 10-30: one face (the sliver at 20 joins it)
		{24, 29, LayoutFit},   // 30-35: no face
	}
	if len(segs) != len(want) {
		t.Fatalf("segments %+v, want %d", segs, len(want))
	}
	for i, w := range want {
		if math.Abs(segs[i].c0-w.c0) > 1e-9 || math.Abs(segs[i].c1-w.c1) > 1e-9 || segs[i].lay.kind != w.kind {
			t.Errorf("segment %d: %.2f-%.2f %s, want %.2f-%.2f %s", i, segs[i].c0, segs[i].c1, segs[i].lay.kind, w.c0, w.c1, w.kind)
		}
	}
	// No Layout: follow with a path, else fit or the centre crop as before.
	for _, c := range []struct {
		opts RenderOptions
		kind string
	}{
		{RenderOptions{Follow: path}, LayoutFollow},
		{RenderOptions{Fit: true}, LayoutFit},
		{RenderOptions{}, LayoutCenter},
	} {
		segs, err := layoutSegments([]Interval{{1, 3}}, c.opts, 0.5)
		if err != nil || len(segs) != 1 || segs[0].lay.kind != c.kind {
			t.Errorf("options %+v: segments %+v (%v), want one %s", c.opts, segs, err, c.kind)
		}
	}
	if _, err := layoutSegments([]Interval{{1, 3}}, RenderOptions{Follow: []PathKey{{2, 0.5}, {1, 0.4}}}, 0.5); err == nil || !strings.Contains(err.Error(), "time order") {
		t.Errorf("a path out of order: error %v, want it refused", err)
	}
	if _, err := layoutSegments([]Interval{{1, 3}}, RenderOptions{Layout: "mosaic"}, 0.5); err == nil || !strings.Contains(err.Error(), `layout "mosaic"`) {
		t.Errorf("unknown layout: error %v, want it named", err)
	}
}

// A clip with no piece has no segment: an error, not a panic.
func TestLayoutSegmentsOfNothingIsAnError(t *testing.T) {
	t.Parallel()
	for _, pieces := range [][]Interval{nil, {{2, 2}}} {
		if segs, err := layoutSegments(pieces, RenderOptions{}, 0.5); err == nil || !strings.Contains(err.Error(), "no part of the source") {
			t.Errorf("pieces %v: segments %v, error %v; want an error", pieces, segs, err)
		}
	}
}

// The render seeks to the millisecond; the clip's start (and so every layout time
// counted from it) is that same millisecond.
func TestClipSpanStartsOnTheSeekedMillisecond(t *testing.T) {
	t.Parallel()
	start, dur, err := clipSpan(Highlight{Start: 1.23456, End: 3}, 10)
	if err != nil || start != 1.235 || math.Abs(dur-1.765) > 1e-9 {
		t.Errorf("clipSpan: %v %v %v, want 1.235 1.765", start, dur, err)
	}
	if _, _, err := clipSpan(Highlight{Start: 2.9996, End: 3}, 10); err == nil {
		t.Error("a highlight shorter than the seek's millisecond: want an error")
	}
}

// The follow path is taken over each piece the clip plays and mapped onto clip time: a
// cut between pieces and a cut between shots are steps at one clip time.
func TestFollowKeysMapSourceToClipTime(t *testing.T) {
	t.Parallel()
	path := []PathKey{{0, 0.2}, {4, 0.6}, {6, 0.6}, {6, 0.9}, {10, 0.9}}
	pieces := []Interval{{1, 3}, {5, 8}}
	got := followKeys(path, pieces, 0, 5)
	want := []PathKey{{0, 0.3}, {2, 0.5}, {2, 0.6}, {3, 0.6}, {3, 0.9}, {5, 0.9}}
	if len(got) != len(want) {
		t.Fatalf("keys %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i].T-want[i].T) > 1e-9 || math.Abs(got[i].X-want[i].X) > 1e-9 {
			t.Errorf("key %d: %v, want %v (all: %v)", i, got[i], want[i], got)
		}
	}
	// A run starting later in the clip has its own time 0.
	if got := followKeys(path, pieces, 2.5, 5); got[0].T != 0 || math.Abs(got[0].X-0.6) > 1e-9 {
		t.Errorf("run from 2.5: first key %v, want {0 0.6}", got[0])
	}
}

// A follow run that ends at a shot cut holds the place its own shot's path has there,
// not the next shot's: the path steps at the cut, and the run takes the key before it.
func TestFollowRunEndingAtACutKeepsItsShotsPlace(t *testing.T) {
	t.Parallel()
	shots := []Shot{
		{Start: 0, End: 5, Faces: []FaceBox{{X: 0.3, Y: 0.4, Size: 0.3}}, Speaker: -1},
		{Start: 5, End: 10, Faces: twoFaces, Speaker: -1},
	}
	path := []PathKey{{0, 0.3}, {5, 0.3}, {5, 0.7}, {10, 0.7}}
	pieces := []Interval{{1, 9}}
	segs, err := layoutSegments(pieces, RenderOptions{Layout: LayoutAuto, Shots: shots, Follow: path}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 2 || segs[0].lay.kind != LayoutFollow {
		t.Fatalf("segments %+v, want follow then split", segs)
	}
	keys := followKeys(path, pieces, segs[0].c0, segs[0].c1)
	for _, k := range keys {
		if math.Abs(k.X-0.3) > 1e-9 {
			t.Errorf("follow keys %v: want the window at 0.3 over the whole first shot", keys)
			break
		}
	}
	if got := pathBefore(path, 5); got != 0.3 {
		t.Errorf("pathBefore at the step: %v, want the earlier key's 0.3", got)
	}
	if got := pathAt(path, 5); got != 0.7 {
		t.Errorf("pathAt at the step: %v, want the later key's 0.7", got)
	}
}

// The crop expression steps at a step of the path and keeps the window in the source;
// its pieces are the leaves of a balanced tree, so a long path nests only log2(keys) deep.
func TestFollowExprClampsAndSteps(t *testing.T) {
	t.Parallel()
	keys := []PathKey{{0, 0}, {1, 0.5}, {1, 1}, {2, 1}}
	e := followExpr(keys, 1280, 404)
	if want := "if(lt(t,0.9995),if(lt(t,-0.0005),0,0+(t-0.0000)*438.000),if(lt(t,1.9995),876,876))"; e != want {
		t.Errorf("expression %s, want %s", e, want)
	}
	if e := followExpr(keys, 404, 404); e != "0" {
		t.Errorf("a crop as wide as the source: x %s, want 0", e)
	}
	var long []PathKey
	for i := range 1200 {
		long = append(long, PathKey{float64(i) / 10, 0.3 + 0.4*float64(i%7)/7})
	}
	depth, most := 0, 0
	for _, c := range followExpr(long, 1280, 404) {
		switch c {
		case '(':
			depth++
			most = max(most, depth)
		case ')':
			depth--
		}
	}
	// if( and lt( per level, and the leaf's (t-...).
	if most > 2*12+1 {
		t.Errorf("1200 keys nest %d parentheses deep, want at most %d", most, 2*12+1)
	}
}

func TestPanelRectsTileTheFrame(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{LayoutSplit, LayoutThree, LayoutFour, LayoutScreen, LayoutGame} {
		for aspect, size := range aspectSizes {
			rs := panelRects(kind, size)
			area := 0
			for i, r := range rs {
				if r.x < 0 || r.y < 0 || r.x+r.w > size[0] || r.y+r.h > size[1] || r.w%2 != 0 || r.h%2 != 0 {
					t.Errorf("%s %s: panel %+v outside the frame or odd-sized", kind, aspect, r)
				}
				for _, q := range rs[i+1:] {
					if overlaps(r, q) {
						t.Errorf("%s %s: panels %+v and %+v overlap", kind, aspect, r, q)
					}
				}
				area += r.w * r.h
			}
			if area != size[0]*size[1] {
				t.Errorf("%s %s: panels cover %d of %d pixels", kind, aspect, area, size[0]*size[1])
			}
		}
	}
}

func TestFaceCropHoldsItsFaceOnly(t *testing.T) {
	t.Parallel()
	const w, h = 1280, 720
	for _, ar := range []float64{1080.0 / 960, 540.0 / 1080, 540.0 / 540, 1080.0 / 640} {
		for i, f := range fourFaces {
			others := append(append([]FaceBox(nil), fourFaces[:i]...), fourFaces[i+1:]...)
			c := faceCrop(f, others, w, h, ar)
			fr := faceRect(f, w, h, 1)
			if c.x > fr.x || c.y > fr.y || c.x+c.w < fr.x+fr.w || c.y+c.h < fr.y+fr.h {
				t.Errorf("aspect %.2f: crop %+v does not hold face %+v", ar, c, fr)
			}
			for _, g := range others {
				if overlaps(c, faceRect(g, w, h, 1)) {
					t.Errorf("aspect %.2f: crop %+v for face %v holds face %v", ar, c, f, g)
				}
			}
			if c.x < 0 || c.y < 0 || c.x+c.w > w || c.y+c.h > h {
				t.Errorf("aspect %.2f: crop %+v leaves the source", ar, c)
			}
		}
	}
}

func TestFaceFreeRegionLeavesTheFaceOut(t *testing.T) {
	t.Parallel()
	const w, h = 1280, 720
	r := faceFreeRegion(camFace[0], w, h)
	if overlaps(r, faceRect(camFace[0], w, h, faceMargin)) {
		t.Errorf("region %+v holds the face camera", r)
	}
	if r.w*r.h < w*h/2 {
		t.Errorf("region %+v keeps less than half the screen", r)
	}
	if b := fillBox(r, 1); b.w != b.h || b.x < r.x || b.y < r.y || b.x+b.w > r.x+r.w || b.y+b.h > r.y+r.h {
		t.Errorf("fill box %+v of region %+v: want a square inside it", b, r)
	}
}
