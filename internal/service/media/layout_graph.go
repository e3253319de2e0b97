package media

import (
	"fmt"
	"math"
	"strings"
)

// stepSlack: a time the follow crop changes piece at (a key, a step at a cut or a join)
// is compared this much early, so a frame on it is not taken for the one before.
const stepSlack = 0.0005

// rect is a box in pixels.
type rect struct{ x, y, w, h int }

// layoutGraph is the reframe of a render: it reads the clip's picture from the labelled
// input in (clip time starting at 0) and leaves a chain open whose picture is exactly size.
// One segment is one chain; several are trimmed from the clip, laid out each and joined.
func layoutGraph(in string, w, h int, size [2]int, segs []segment, pieces []Interval, follow []PathKey, fitRatio float64) string {
	// A path in source time, as keys of a segment's time.
	segKeys := func(sg segment) func([]PathKey) []PathKey {
		return func(path []PathKey) []PathKey { return followKeys(path, pieces, sg.c0, sg.c1) }
	}
	if len(segs) == 1 {
		sg := segs[0]
		return segmentFilter(in, "l0", w, h, size, sg.lay, segKeys(sg), followKeys(follow, pieces, sg.c0, sg.c1), fitRatio)
	}
	var b, cat strings.Builder
	b.WriteString(in + "split=" + fmt.Sprint(len(segs)))
	for i := range segs {
		fmt.Fprintf(&b, "[seg%d]", i)
	}
	b.WriteString(";")
	for i, sg := range segs {
		trim := fmt.Sprintf("[seg%d]trim=start=%.4f", i, sg.c0)
		if i < len(segs)-1 {
			trim += fmt.Sprintf(":end=%.4f", sg.c1)
		}
		fmt.Fprintf(&b, "%s,setpts=PTS-STARTPTS[segin%d];", trim, i)
		b.WriteString(segmentFilter(fmt.Sprintf("[segin%d]", i), fmt.Sprintf("l%d", i), w, h, size, sg.lay, segKeys(sg), followKeys(follow, pieces, sg.c0, sg.c1), fitRatio))
		fmt.Fprintf(&b, "[segout%d];", i)
		fmt.Fprintf(&cat, "[segout%d]", i)
	}
	return b.String() + cat.String() + fmt.Sprintf("concat=n=%d:v=1:a=0", len(segs))
}

// segmentFilter lays out one segment: in is its picture, id prefixes the labels it makes;
// keys are the follow crop's path in the segment's time, segKeys maps a face's path there;
// fitRatio (w/h, 0 for none) is the fit layout's crop of the picture it fits.
func segmentFilter(in, id string, w, h int, size [2]int, lay plan, segKeys func([]PathKey) []PathKey, keys []PathKey, fitRatio float64) string {
	tw, th := size[0], size[1]
	switch lay.kind {
	case LayoutFit:
		return fitFilter(in, id, w, h, size, lay.cx, fitRatio)
	case LayoutFollow:
		cw, ch, _, y := cropBox(w, h, float64(tw)/float64(th), 0.5)
		return in + cropScale(rect{0, y, cw, ch}, followExpr(keys, w, cw), tw, th)
	case LayoutSplit, LayoutThree, LayoutFour, LayoutScreen, LayoutGame:
		return panelFilter(in, id, w, h, size, lay, segKeys)
	}
	// LayoutCenter.
	cw, ch, x, y := cropBox(w, h, float64(tw)/float64(th), lay.cx)
	return in + cropScale(rect{x, y, cw, ch}, "", tw, th)
}

// cropScale crops box c (its x the expression xExpr over time t, when not "") and scales
// it to tw x th.
func cropScale(c rect, xExpr string, tw, th int) string {
	x := fmt.Sprint(c.x)
	if xExpr != "" {
		x = "'" + xExpr + "'"
	}
	return fmt.Sprintf("crop=w=%d:h=%d:x=%s:y=%d,scale=%d:%d:flags=bicubic,setsar=1", c.w, c.h, x, c.y, tw, th)
}

// fitFilter scales the whole picture (or, with fitRatio > 0, its largest box of that
// ratio around cx: fitLayoutCropRatio) to fit size over a blurred fill of the crop around cx.
func fitFilter(in, id string, w, h int, size [2]int, cx, fitRatio float64) string {
	tw, th := size[0], size[1]
	cw, ch, x, y := cropBox(w, h, float64(tw)/float64(th), cx)
	fgCrop := ""
	fw0, fh0 := w, h
	if fitRatio > 0 {
		rw, rh, rx, ry := cropBox(w, h, fitRatio, cx)
		fgCrop = fmt.Sprintf("crop=%d:%d:%d:%d,", rw, rh, rx, ry)
		fw0, fh0 = rw, rh
	}
	s := math.Min(float64(tw)/float64(fw0), float64(th)/float64(fh0))
	fw, fh := min(tw, evenRound(float64(fw0)*s)), min(th, evenRound(float64(fh0)*s))
	// Blurring a tenth-size copy is cheap and, scaled up, as soft as a wide blur at full size.
	bw, bh := evenRound(float64(tw)/10), evenRound(float64(th)/10)
	bgsrc, fgsrc, bg, fg := "["+id+"bgsrc]", "["+id+"fgsrc]", "["+id+"bg]", "["+id+"fg]"
	return in + "split=2" + bgsrc + fgsrc + ";" +
		bgsrc + fmt.Sprintf("crop=%d:%d:%d:%d,scale=%d:%d,boxblur=6:2,scale=%d:%d,setsar=1", cw, ch, x, y, bw, bh, tw, th) + bg + ";" +
		fgsrc + fgCrop + fmt.Sprintf("scale=%d:%d:flags=bicubic,setsar=1", fw, fh) + fg + ";" +
		bg + fg + "overlay=(W-w)/2:(H-h)/2"
}

// followExpr is crop's x over the segment's time t: linear between the keys (centres,
// 0..1 of the source width w, for a crop cw wide), each key's place clamped so the
// window stays inside the source; two keys at one time are a step. The pieces are the
// leaves of a balanced tree of if(lt(t,T),...,...): ffmpeg refuses a flat sum of a hundred
// terms, and a tree keeps the depth (and the work per frame) at log2 of the keys.
func followExpr(keys []PathKey, w, cw int) string {
	px := func(x float64) float64 { return cropLeft(x, w, cw) }
	if len(keys) == 0 || cw >= w {
		return fmt.Sprint(px(0.5))
	}
	type leaf struct {
		t0   float64 // the leaf holds from t0 to the next leaf's t0
		expr string
	}
	first, last := keys[0], keys[len(keys)-1]
	leaves := []leaf{{math.Inf(-1), fmt.Sprint(px(first.X))}}
	for i := 0; i+1 < len(keys); i++ {
		a, b := keys[i], keys[i+1]
		if b.T-a.T < 1e-4 {
			continue // a step: the next interval starts from b
		}
		xa, xb := px(a.X), px(b.X)
		e := fmt.Sprint(xa)
		if xa != xb {
			e = fmt.Sprintf("%g+(t-%.4f)*%.3f", xa, a.T, (xb-xa)/(b.T-a.T))
		}
		leaves = append(leaves, leaf{a.T, e})
	}
	leaves = append(leaves, leaf{last.T, fmt.Sprint(px(last.X))})
	var tree func(lo, hi int) string
	tree = func(lo, hi int) string {
		if lo == hi {
			return leaves[lo].expr
		}
		mid := (lo + hi + 1) / 2
		// Half a millisecond early: ffmpeg's t is pts times a rounded time base, and a
		// frame on a step may come out a hair before it (no frame is that close before).
		return fmt.Sprintf("if(lt(t,%.4f),%s,%s)", leaves[mid].t0-stepSlack, tree(lo, mid-1), tree(mid, hi))
	}
	return tree(0, len(leaves)-1)
}

// cropLeft is the left edge of a crop cw wide centred on x (0..1 of the width w), kept
// inside the source: the follow crop's arithmetic at each of its keys.
func cropLeft(x float64, w, cw int) float64 {
	return min(float64(w-cw), max(0, math.Round(x*float64(w)-float64(cw)/2)))
}

// panelFilter draws the panel layouts: each panel a crop of the source scaled to its
// place in the frame, stacked with xstack. A panel whose face moves (FaceBox.Path)
// follows it: its crop keeps its size and slides along the face's path (segKeys maps the
// path to the segment's time).
func panelFilter(in, id string, w, h int, size [2]int, lay plan, segKeys func([]PathKey) []PathKey) string {
	places := panelRects(lay.kind, size)
	crops := make([]string, len(places))
	switch lay.kind {
	case LayoutScreen, LayoutGame:
		face, content := places[1], places[0]
		region := faceFreeRegion(lay.faces[0], w, h)
		if lay.kind == LayoutScreen {
			// The whole screen, letterboxed: text on it stays readable.
			crops[0] = fmt.Sprintf("crop=%d:%d:%d:%d,scale=w=%d:h=%d:force_original_aspect_ratio=decrease:force_divisible_by=2:flags=bicubic,"+
				"pad=%d:%d:(ow-iw)/2:(oh-ih)/2:color=black,setsar=1", region.w, region.h, region.x, region.y, content.w, content.h, content.w, content.h)
		} else {
			// Gameplay fills its panel: the largest box of its shape inside the region.
			c := fillBox(region, float64(content.w)/float64(content.h))
			crops[0] = cropScale(c, "", content.w, content.h)
		}
		c := faceCrop(lay.faces[0], nil, w, h, float64(face.w)/float64(face.h))
		crops[1] = cropScale(c, "", face.w, face.h)
	default:
		for i, c := range facePanelCrops(lay.faces, places, w, h) {
			x := ""
			if path := lay.faces[i].Path; len(path) > 0 {
				x = followExpr(segKeys(path), w, c.w)
			}
			crops[i] = cropScale(c, x, places[i].w, places[i].h)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%ssplit=%d", in, len(crops))
	for i := range crops {
		fmt.Fprintf(&b, "[%sp%d]", id, i)
	}
	b.WriteString(";")
	layout := make([]string, len(crops))
	for i, c := range crops {
		fmt.Fprintf(&b, "[%sp%d]%s[%sq%d];", id, i, c, id, i)
		layout[i] = fmt.Sprintf("%d_%d", places[i].x, places[i].y)
	}
	for i := range crops {
		fmt.Fprintf(&b, "[%sq%d]", id, i)
	}
	fmt.Fprintf(&b, "xstack=inputs=%d:layout=%s", len(crops), strings.Join(layout, "|"))
	return b.String()
}

// facePanelCrops are the crops of the source (w x h) that the panels at places show:
// each face cropped to its panel's shape, keeping the other faces out (faceCrop).
func facePanelCrops(faces []FaceBox, places []rect, w, h int) []rect {
	crops := make([]rect, len(faces))
	for i, f := range faces {
		others := make([]FaceBox, 0, len(faces)-1)
		for j, g := range faces {
			if j != i {
				others = append(others, g)
			}
		}
		crops[i] = faceCrop(f, others, w, h, float64(places[i].w)/float64(places[i].h))
	}
	return crops
}

// panelRects are the places of a layout's panels in a frame of size, in the order of its
// faces (left to right in the source) or, for screen and game, content then face:
//
//	split  portrait: stacked halves; square and landscape: side by side
//	three  portrait: three rows; landscape: three columns; square: two above, one below
//	four   a 2x2 grid
//	screen, game  portrait: content above (60%), face below (40%); square: content
//	              above (2/3), face below (1/3); landscape: content left (3/4), face right
func panelRects(kind string, size [2]int) []rect {
	tw, th := size[0], size[1]
	portrait, landscape := th > tw, tw > th
	switch kind {
	case LayoutSplit:
		if portrait {
			return []rect{{0, 0, tw, th / 2}, {0, th / 2, tw, th - th/2}}
		}
		return []rect{{0, 0, tw / 2, th}, {tw / 2, 0, tw - tw/2, th}}
	case LayoutThree:
		switch {
		case portrait:
			r := even(th / 3)
			return []rect{{0, 0, tw, r}, {0, r, tw, r}, {0, 2 * r, tw, th - 2*r}}
		case landscape:
			c := even(tw / 3)
			return []rect{{0, 0, c, th}, {c, 0, c, th}, {2 * c, 0, tw - 2*c, th}}
		}
		return []rect{{0, 0, tw / 2, th / 2}, {tw / 2, 0, tw - tw/2, th / 2}, {0, th / 2, tw, th - th/2}}
	case LayoutFour:
		return []rect{{0, 0, tw / 2, th / 2}, {tw / 2, 0, tw - tw/2, th / 2}, {0, th / 2, tw / 2, th - th/2}, {tw / 2, th / 2, tw - tw/2, th - th/2}}
	}
	// Screen and game.
	switch {
	case portrait:
		c := even(th * 3 / 5)
		return []rect{{0, 0, tw, c}, {0, c, tw, th - c}}
	case landscape:
		c := even(tw * 3 / 4)
		return []rect{{0, 0, c, th}, {c, 0, tw - c, th}}
	}
	c := even(th * 2 / 3)
	return []rect{{0, 0, tw, c}, {0, c, tw, th - c}}
}

func even(v int) int { return v &^ 1 }

// faceCrop is the box of aspect ar around face f in a w x h source: faceZoom face sides
// high where the source allows, centred on the face and kept inside the source, and
// shrunk (down to minFaceCrop face sides) until it holds none of the other faces.
func faceCrop(f FaceBox, others []FaceBox, w, h int, ar float64) rect {
	side := f.Size * float64(h)
	ch := math.Min(float64(h), faceZoom*side)
	ch = math.Min(ch, float64(w)/ar)
	for range 40 {
		r := boxAround(f.X*float64(w), f.Y*float64(h), ch*ar, ch, w, h)
		free := true
		for _, g := range others {
			if overlaps(r, faceRect(g, w, h, 1)) {
				free = false
				break
			}
		}
		if free || ch*0.93 < minFaceCrop*side {
			return r
		}
		ch *= 0.93
	}
	return boxAround(f.X*float64(w), f.Y*float64(h), ch*ar, ch, w, h)
}

// boxAround is a cw x ch box (rounded to even sizes) centred on (cx, cy) as far as the
// w x h source allows.
func boxAround(cx, cy, cw, ch float64, w, h int) rect {
	bw, bh := min(w, evenRound(cw)), min(h, evenRound(ch))
	x := min(w-bw, max(0, int(math.Round(cx-float64(bw)/2))))
	y := min(h-bh, max(0, int(math.Round(cy-float64(bh)/2))))
	return rect{x, y, bw, bh}
}

// faceRect is the face's box in pixels, its side grown by grow.
func faceRect(f FaceBox, w, h int, grow float64) rect {
	s := f.Size * float64(h) * grow
	return rect{int(f.X*float64(w) - s/2), int(f.Y*float64(h) - s/2), int(s), int(s)}
}

func overlaps(a, b rect) bool {
	return a.x < b.x+b.w && b.x < a.x+a.w && a.y < b.y+b.h && b.y < a.y+a.h
}

// faceFreeRegion is the largest box of the source left of, right of, above or below the
// face camera (the face grown by faceMargin, and as far again down for the shoulders).
func faceFreeRegion(f FaceBox, w, h int) rect {
	s := f.Size * float64(h) * faceMargin
	x0 := max(0, int(f.X*float64(w)-s/2))
	x1 := min(w, int(f.X*float64(w)+s/2))
	y0 := max(0, int(f.Y*float64(h)-s/2))
	y1 := min(h, int(f.Y*float64(h)+s))
	best := rect{0, 0, w, h}
	area := -1
	for _, r := range []rect{{0, 0, x0, h}, {x1, 0, w - x1, h}, {0, 0, w, y0}, {0, y1, w, h - y1}} {
		r.w, r.h = r.w&^1, r.h&^1
		if r.w >= 2 && r.h >= 2 && r.w*r.h > area {
			best, area = r, r.w*r.h
		}
	}
	return best
}

// fillBox is the largest box of aspect ar inside r, centred in it.
func fillBox(r rect, ar float64) rect {
	cw, ch := float64(r.w), float64(r.w)/ar
	if ch > float64(r.h) {
		ch, cw = float64(r.h), float64(r.h)*ar
	}
	bw, bh := min(r.w, evenRound(cw)), min(r.h, evenRound(ch))
	return rect{r.x + (r.w-bw)/2, r.y + (r.h-bh)/2, bw, bh}
}
