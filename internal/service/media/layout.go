package media

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// How a render lays out its picture, shot by shot.
//
// A clip is pieces of the source (the highlight, or its Keep pieces) played one after the
// other. The pieces are cut again at shot bounds into segments; each segment takes the
// layout that was asked for, as far as its shot's faces allow it (see resolveLayout), and
// segments in a row with the same layout are drawn as one. A clip of one segment is one
// chain of filters; otherwise the segments are trimmed from the clip, laid out each, and
// concatenated, all inside the render's one filtergraph.

const (
	// minSegmentSec: a shot's part of a clip shorter than this (a frame or two) keeps the
	// layout before it, so a layout never flashes and no segment is empty.
	minSegmentSec = 0.12
	// ScreenFaceMaxSize is the largest face (of the source's height) LayoutAuto takes for a
	// face camera over a screen; the face must also sit in a corner (cornerBand).
	ScreenFaceMaxSize = 0.25
	// cornerBand: a face centred within this fraction of the width of the left or right
	// edge, and of the height of the top or bottom edge, is in a corner.
	cornerBand = 1.0 / 3
	// faceZoom: a face panel is this many face sides high (when the source allows), so the
	// face takes about 40% of its panel's height.
	faceZoom = 2.5
	// minFaceCrop: a face panel is never tighter than this many face sides high (people
	// sitting close together in a wide shot, on panels wider than they are high).
	minFaceCrop = 1.05
	// faceMargin: the region of a face camera is the face box grown this many times, so
	// the screen or game panel keeps neither the face nor the shoulders under it.
	faceMargin = 1.8
)

// segment is a part of the clip in one piece and one shot.
type segment struct {
	c0, c1 float64 // clip seconds
	shot   int     // index in RenderOptions.Shots, -1 when no shot covers it
	lay    plan
}

// plan is the concrete layout of a segment: one of the Layout* constants other than
// LayoutAuto, and the faces it places (for the panel layouts) or the fixed crop
// centre. LayoutFollow always runs along RenderOptions.Follow: without a path,
// resolveLayout makes it a LayoutCenter.
type plan struct {
	kind  string
	faces []FaceBox // split, three, four: ordered left to right; screen, game: the face camera
	cx    float64   // LayoutCenter and LayoutFit: centre of the crop, 0..1 of the width
}

func (p plan) same(q plan) bool {
	return p.kind == q.kind && p.cx == q.cx && slices.EqualFunc(p.faces, q.faces, func(a, b FaceBox) bool {
		return a.X == b.X && a.Y == b.Y && a.Size == b.Size && slices.Equal(a.Path, b.Path)
	})
}

// clipPieces are the source spans the clip plays, in order.
func clipPieces(h Highlight, duration float64, keep []Interval) []Interval {
	if len(keep) > 0 {
		return keep
	}
	return []Interval{{h.Start, min(h.End, duration)}}
}

// layoutSegments cuts the clip's pieces at the shots' bounds and gives each part its
// layout; parts in a row with the same layout are joined (a follow path crosses pieces
// and shots within one part).
func layoutSegments(pieces []Interval, opts RenderOptions, cx float64) ([]segment, error) {
	want := opts.Layout
	if want == "" {
		switch {
		case len(opts.Follow) > 0:
			want = LayoutFollow
		case opts.Fit:
			want = LayoutFit
		default:
			want = LayoutCenter
		}
	}
	if !slices.Contains(Layouts, want) {
		return nil, fmt.Errorf("render: layout %q: want one of %v", opts.Layout, Layouts)
	}
	if !slices.IsSortedFunc(opts.Follow, func(a, b PathKey) int { return cmp.Compare(a.T, b.T) }) {
		return nil, errors.New("render: the Follow path's keys must be in time order")
	}
	var segs []segment
	at := 0.0
	for _, pc := range pieces {
		s := pc.Start
		for s < pc.End-1e-9 {
			shot, end := shotAt(opts.Shots, s, pc.End)
			segs = append(segs, segment{c0: at + s - pc.Start, c1: at + end - pc.Start, shot: shot})
			s = end
		}
		at += pc.End - pc.Start
	}
	// A sliver of a shot keeps the layout of the segment before (or after) it.
	for i := range segs {
		var faces []FaceBox
		if segs[i].shot >= 0 {
			faces = opts.Shots[segs[i].shot].Faces
		}
		segs[i].lay = resolveLayout(want, faces, len(opts.Follow) > 0, cx)
	}
	for i := 0; i < len(segs); i++ {
		if segs[i].c1-segs[i].c0 >= minSegmentSec || len(segs) == 1 {
			continue
		}
		if i > 0 {
			segs[i].lay = segs[i-1].lay
		} else {
			segs[i].lay = segs[i+1].lay
		}
	}
	if len(segs) == 0 {
		return nil, errors.New("render: the clip plays no part of the source (its pieces are empty)")
	}
	// Join runs of one layout: the first segment of a run stands for it.
	out := segs[:1]
	for _, sg := range segs[1:] {
		last := &out[len(out)-1]
		if last.lay.same(sg.lay) {
			last.c1 = sg.c1
			continue
		}
		out = append(out, sg)
	}
	return out, nil
}

// shotAt is the shot holding source time s and where the part of [s, end) in it ends.
func shotAt(shots []Shot, s, end float64) (int, float64) {
	for i, sh := range shots {
		if s >= sh.Start-1e-9 && s < sh.End-1e-9 {
			return i, min(end, sh.End)
		}
	}
	// Outside every shot: up to the next shot's start.
	next := end
	for _, sh := range shots {
		if sh.Start > s+1e-9 {
			next = min(next, sh.Start)
		}
	}
	return -1, next
}

// resolveLayout is the layout a shot with faces gets when want is asked for. A layout
// needing more faces than the shot has falls back to the one that fits them: four ->
// three -> split -> follow (one face) -> fit (none); screen and game need one face, else
// fit; follow without a path centres on the shot's largest face, or on cx without one;
// auto picks by the faces (see autoLayout).
func resolveLayout(want string, faces []FaceBox, hasPath bool, cx float64) plan {
	if want == LayoutAuto {
		want = autoLayout(faces)
	}
	switch want {
	case LayoutCenter:
		return plan{kind: LayoutCenter, cx: cx}
	case LayoutFit:
		return plan{kind: LayoutFit, cx: cx}
	case LayoutScreen, LayoutGame:
		if len(faces) == 0 {
			return plan{kind: LayoutFit, cx: cx}
		}
		return plan{kind: want, faces: faces[:1]}
	case LayoutFour, LayoutThree, LayoutSplit:
		need := map[string]int{LayoutSplit: 2, LayoutThree: 3, LayoutFour: 4}[want]
		switch n := min(len(faces), need); n {
		case 0:
			return plan{kind: LayoutFit, cx: cx}
		case 1:
			return resolveLayout(LayoutFollow, faces, hasPath, cx)
		default:
			kind := map[int]string{2: LayoutSplit, 3: LayoutThree, 4: LayoutFour}[n]
			// Faces come largest first: the n largest, placed left to right as in the source.
			fs := slices.Clone(faces[:n])
			slices.SortStableFunc(fs, func(a, b FaceBox) int { return cmp.Compare(a.X, b.X) })
			return plan{kind: kind, faces: fs}
		}
	}
	// LayoutFollow.
	if hasPath {
		return plan{kind: LayoutFollow}
	}
	if len(faces) > 0 {
		return plan{kind: LayoutCenter, cx: faces[0].X}
	}
	return plan{kind: LayoutCenter, cx: cx}
}

// autoLayout is LayoutAuto's choice for a shot: no face -> fit; one small face
// (Size < ScreenFaceMaxSize) in a corner -> screen; one face -> follow; two -> split;
// three -> three; four -> four.
func autoLayout(faces []FaceBox) string {
	switch len(faces) {
	case 0:
		return LayoutFit
	case 1:
		f := faces[0]
		corner := (f.X < cornerBand || f.X > 1-cornerBand) && (f.Y < cornerBand || f.Y > 1-cornerBand)
		if f.Size < ScreenFaceMaxSize && corner {
			return LayoutScreen
		}
		return LayoutFollow
	case 2:
		return LayoutSplit
	case 3:
		return LayoutThree
	}
	return LayoutFour
}

// Layouts are the values RenderOptions.Layout takes ("" aside).
var Layouts = []string{LayoutFollow, LayoutCenter, LayoutFit, LayoutSplit, LayoutThree, LayoutFour, LayoutScreen, LayoutGame, LayoutAuto}

// followKeys is the crop centre path (0..1 of the width) of a segment run in clip seconds
// relative to the run's start c0: the source path over each piece of the clip it covers,
// mapped onto clip time. Where two pieces join, the path steps at once from one piece's
// place to the next. pieces are the clip's pieces; the run covers clip time [c0, c1).
func followKeys(path []PathKey, pieces []Interval, c0, c1 float64) []PathKey {
	var out []PathKey
	at := 0.0
	for _, pc := range pieces {
		p0, p1 := at, at+pc.End-pc.Start
		at = p1
		a, b := max(p0, c0), min(p1, c1)
		if b-a <= 1e-9 {
			continue
		}
		sa, sb := pc.Start+(a-p0), pc.Start+(b-p0)
		out = append(out, PathKey{a - c0, pathAt(path, sa)})
		for _, k := range path {
			if k.T > sa+1e-6 && k.T < sb-1e-6 {
				out = append(out, PathKey{k.T - sa + a - c0, centre(k.X)})
			}
		}
		out = append(out, PathKey{b - c0, pathBefore(path, sb)})
	}
	return out
}

// pathAt is the path's X at source time t: linear between keys, held before the first
// and after the last; a path that steps (two keys at one time) takes the later key at it.
func pathAt(path []PathKey, t float64) float64 { return pathSample(path, t, false) }

// pathBefore is the path's X just before source time t (its left limit): as pathAt, but a
// path that steps at t takes the earlier key, so a part of the clip that ends at a shot
// cut ends where its own shot's path is.
func pathBefore(path []PathKey, t float64) float64 { return pathSample(path, t, true) }

// pathSample is pathAt, or with left pathBefore.
func pathSample(path []PathKey, t float64, left bool) float64 {
	if len(path) == 0 {
		return 0.5
	}
	// The first key after t (left: at or after t); a and b below bracket t.
	i, _ := slices.BinarySearchFunc(path, t, func(k PathKey, t float64) int {
		if (!left && k.T <= t) || (left && k.T < t-1e-9) {
			return -1
		}
		return 1
	})
	switch {
	case i == 0:
		return centre(path[0].X)
	case i == len(path):
		return centre(path[len(path)-1].X)
	}
	a, b := path[i-1], path[i]
	if b.T-a.T <= 1e-9 {
		return centre(b.X)
	}
	return centre(a.X + (b.X-a.X)*(t-a.T)/(b.T-a.T))
}

// panelCropLeft is the left edge (source pixels) at source time t of the panel's crop
// crop (x0, y0, x1, y1, as PanelCrops gives it) of face f: the crop slides along the
// face's path as the render's crop expression does (followExpr), or holds still.
func panelCropLeft(f FaceBox, crop [4]int, w int, t float64) float64 {
	if len(f.Path) == 0 {
		return float64(crop[0])
	}
	return cropLeft(pathAt(f.Path, t), w, crop[2]-crop[0])
}

// PanelCrops is where the panels of a layout (split, three or four) of a shot
// with faces take their pictures from in a w x h source rendered at size:
// the faces placed, left to right, and each panel's crop in source pixels
// (x0, y0, x1, y1). A shot with too few faces for the layout gets the one
// that fits them (none when that is not a panel layout).
func PanelCrops(layout string, faces []FaceBox, w, h int, size [2]int) ([]FaceBox, [][4]int) {
	lay := resolveLayout(layout, faces, false, 0.5)
	switch lay.kind {
	case LayoutSplit, LayoutThree, LayoutFour:
	default:
		return nil, nil
	}
	var crops [][4]int
	for _, c := range facePanelCrops(lay.faces, panelRects(lay.kind, size), w, h) {
		crops = append(crops, [4]int{c.x, c.y, c.x + c.w, c.y + c.h})
	}
	return lay.faces, crops
}
