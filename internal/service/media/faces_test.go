package media

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/faces"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// faceAnalysis generates a face video with gen and analyses it.
func faceAnalysis(t *testing.T, gen func(ctx context.Context, path string) (*testvideo.FaceLayout, error)) (*Analysis, *testvideo.FaceLayout) {
	t.Helper()
	toolexectest.RequireMedia(t)
	path := filepath.Join(t.TempDir(), "faces.mp4")
	l, err := gen(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return a, l
}

// checkSmooth: between keys no faster than faces.MaxPanSpeed; a step only at a cut.
func checkSmooth(t *testing.T, keys []PathKey, cuts []float64) {
	t.Helper()
	for i := 1; i < len(keys); i++ {
		a, b := keys[i-1], keys[i]
		dt := b.T - a.T
		if dt < 1e-9 {
			if nearest(cuts, b.T) > 1e-9 {
				t.Errorf("the path steps at %.3f s, not a cut %v", b.T, cuts)
			}
			continue
		}
		if v := math.Abs(b.X-a.X) / dt; v > faces.MaxPanSpeed+1e-9 {
			t.Errorf("%.2f-%.2f s pans at %.3f of the width a second, over %g", a.T, b.T, v, faces.MaxPanSpeed)
		}
	}
}

func TestAnalyzeFollowsAMovingFace(t *testing.T) {
	t.Parallel()
	a, l := faceAnalysis(t, func(ctx context.Context, p string) (*testvideo.FaceLayout, error) {
		return testvideo.MovingFace(ctx, p, testvideo.FaceOptions{Duration: 8 * time.Second, Silent: true})
	})
	if len(a.SceneCuts) != 0 || len(a.Shots) != 1 {
		t.Fatalf("cuts %v, %d shots: want one shot", a.SceneCuts, len(a.Shots))
	}
	if sh := a.Shots[0]; len(sh.Faces) != 1 || math.Abs(sh.Faces[0].X-0.5) > 0.05 || math.Abs(sh.Faces[0].Size-l.Shots[0].Faces[0].From.Size) > 0.35*l.Shots[0].Faces[0].From.Size {
		t.Errorf("shot %+v: want one face, at the middle of its way (median place)", sh)
	}
	if len(a.Follow) < 2 {
		t.Fatalf("follow %v: want a path", a.Follow)
	}
	checkSmooth(t, a.Follow, nil)
	if x := pathAt(a.Follow, 0); math.Abs(x-1.0/3) > 0.04 {
		t.Errorf("the path starts at %.3f, want about 1/3", x)
	}
	if x := pathAt(a.Follow, l.Duration); math.Abs(x-2.0/3) > faces.DeadZone+0.04 {
		t.Errorf("the path ends at %.3f, want about 2/3", x)
	}
	// All along, the crop's centre is within the dead zone (and a little) of the face.
	for tt := 0.0; tt < l.Duration; tt += 0.25 {
		if d := math.Abs(pathAt(a.Follow, tt) - l.FacesAt(tt)[0].X); d > faces.DeadZone+0.04 {
			t.Errorf("at %.2f s the path is %.3f of the width from the face", tt, d)
		}
	}
}

func TestAnalyzeFollowJumpsAtTheCut(t *testing.T) {
	t.Parallel()
	a, l := faceAnalysis(t, func(ctx context.Context, p string) (*testvideo.FaceLayout, error) {
		return testvideo.FaceCut(ctx, p, testvideo.FaceOptions{Duration: 6 * time.Second, Silent: true})
	})
	cut := l.Cuts()[0]
	if len(a.SceneCuts) != 1 || math.Abs(a.SceneCuts[0]-cut) > 2.0/25 {
		t.Fatalf("cuts %v, want one at %.2f", a.SceneCuts, cut)
	}
	if len(a.Shots) != 2 || len(a.Shots[0].Faces) != 1 || len(a.Shots[1].Faces) != 1 {
		t.Fatalf("shots %+v: want two, one face each", a.Shots)
	}
	if a.Shots[0].End != a.SceneCuts[0] || math.Abs(a.Shots[0].Faces[0].X-1.0/3) > 0.04 || math.Abs(a.Shots[1].Faces[0].X-2.0/3) > 0.04 {
		t.Errorf("shots %+v: want the face at 1/3 then 2/3, split at the cut", a.Shots)
	}
	checkSmooth(t, a.Follow, a.SceneCuts)
	var at []PathKey
	for _, k := range a.Follow {
		if k.T == a.SceneCuts[0] {
			at = append(at, k)
		}
	}
	// Within 2 frames of the true cut (the detected cut is), from one face to the other.
	if len(at) != 2 || math.Abs(at[0].X-1.0/3) > 0.04 || math.Abs(at[1].X-2.0/3) > 0.04 {
		t.Errorf("keys at the cut %v (path %v): want a step from 1/3 to 2/3", at, a.Follow)
	}
	if x := pathAt(a.Follow, cut-0.2); math.Abs(x-1.0/3) > 0.04 {
		t.Errorf("before the cut the path is at %.3f", x)
	}
}

func TestAnalyzeTwoFacesAndTheSpeaker(t *testing.T) {
	t.Parallel()
	for _, speaker := range []int{0, 1} {
		a, l := faceAnalysis(t, func(ctx context.Context, p string) (*testvideo.FaceLayout, error) {
			return testvideo.TwoFaces(ctx, p, speaker, testvideo.FaceOptions{Duration: 5 * time.Second, Silent: true})
		})
		if len(a.Shots) != 1 || len(a.Shots[0].Faces) != 2 {
			t.Fatalf("shots %+v: want one with two faces", a.Shots)
		}
		sh := a.Shots[0]
		if sh.Speaker < 0 {
			t.Fatalf("face %d speaks: no speaker found in %+v", speaker, sh)
		}
		want := l.Shots[0].Faces[speaker].From.X
		if got := sh.Faces[sh.Speaker].X; math.Abs(got-want) > 0.04 {
			t.Errorf("face %d at %.2f speaks; the speaker found is at %.3f", speaker, want, got)
		}
		for _, k := range a.Follow {
			if math.Abs(k.X-want) > 0.04 {
				t.Errorf("the path is at %.3f at %.2f s, want on the speaker at %.2f", k.X, k.T, want)
			}
		}
	}
	a, _ := faceAnalysis(t, func(ctx context.Context, p string) (*testvideo.FaceLayout, error) {
		return testvideo.TwoFaces(ctx, p, -1, testvideo.FaceOptions{Duration: 5 * time.Second, Silent: true})
	})
	if len(a.Shots) != 1 || len(a.Shots[0].Faces) != 2 || a.Shots[0].Speaker != -1 {
		t.Errorf("nobody speaks: shots %+v, want two faces and speaker -1", a.Shots)
	}
}

func TestAnalyzeGroupsAndAScreen(t *testing.T) {
	t.Parallel()
	opts := testvideo.FaceOptions{Duration: 4 * time.Second, Silent: true}
	for _, n := range []int{3, 4} {
		a, l := faceAnalysis(t, func(ctx context.Context, p string) (*testvideo.FaceLayout, error) {
			return testvideo.GroupOfFaces(ctx, p, n, opts)
		})
		if len(a.Shots) != 1 || len(a.Shots[0].Faces) != n {
			t.Fatalf("%d faces: shots %+v", n, a.Shots)
		}
		for _, want := range l.Shots[0].Faces {
			ok := false
			for _, f := range a.Shots[0].Faces {
				ok = ok || math.Abs(f.X-want.From.X) < 0.04 && math.Abs(f.Y-want.From.Y) < 0.05
			}
			if !ok {
				t.Errorf("%d faces: the one at %.3f,%.3f is not in %+v", n, want.From.X, want.From.Y, a.Shots[0].Faces)
			}
		}
	}
	a, l := faceAnalysis(t, func(ctx context.Context, p string) (*testvideo.FaceLayout, error) {
		return testvideo.ScreenWithFace(ctx, p, opts)
	})
	want := l.Shots[0].Faces[0].From
	if len(a.Shots) != 1 || len(a.Shots[0].Faces) != 1 {
		t.Fatalf("screen: shots %+v, want one with the face camera only", a.Shots)
	}
	if f := a.Shots[0].Faces[0]; math.Abs(f.X-want.X) > 0.04 || math.Abs(f.Y-want.Y) > 0.05 || math.Abs(f.Size-want.Size) > 0.35*want.Size {
		t.Errorf("screen: face %+v, want about %+v", f, want)
	}
}

func TestAnalyzeWithoutFacesHasNoPath(t *testing.T) {
	t.Parallel()
	src, _ := sourceVideo(t, 20, 320, 240)
	a := analysisOf(t, src)
	if len(a.Follow) != 0 {
		t.Errorf("follow %v on a source without faces, want none (renders use CenterX)", a.Follow)
	}
	if len(a.Shots) != len(a.SceneCuts)+1 {
		t.Fatalf("%d shots for %d cuts", len(a.Shots), len(a.SceneCuts))
	}
	for i, s := range a.Shots {
		if len(s.Faces) != 0 || s.Speaker != -1 {
			t.Errorf("shot %d: %+v, want no face", i, s)
		}
		if i > 0 && s.Start != a.SceneCuts[i-1] || i == len(a.Shots)-1 && s.End != a.DurationSec {
			t.Errorf("shot %d %.2f-%.2f does not line up with the cuts %v", i, s.Start, s.End, a.SceneCuts)
		}
	}
}

func TestReadSamplesHandsEveryFrameAndHalvesEveryOther(t *testing.T) {
	t.Parallel()
	const w, h = 8, 4
	var stream []byte
	for k := range 5 {
		for i := range w * h {
			stream = append(stream, byte(k*10+i%w*20)) // columns get brighter to the right
		}
	}
	var got []int
	centres, err := readSamples(bytes.NewReader(stream), w, h, 2, func(k int, frame []byte) {
		got = append(got, k)
		if frame[0] != byte(k*10) {
			t.Errorf("frame %d starts %d", k, frame[0])
		}
	})
	if err != nil || len(got) != 5 || len(centres) != 3 {
		t.Fatalf("err %v, %d frames, %d centres: want 5 frames and 3 centres (frames 0, 2, 4)", err, len(got), len(centres))
	}
	dst := make([]byte, 4*2)
	halve(stream[:w*h], w, dst, 4, 2)
	for x, v := range dst[:4] {
		if want := byte(x*40 + 10); v != want {
			t.Errorf("halved column %d = %d, want %d (the mean of 2x2)", x, v, want)
		}
	}
}

func TestMeanCentreOfAShot(t *testing.T) {
	t.Parallel()
	a := &Analysis{WindowSec: 0.5, CenterX: []float64{0.2, 0.4, 0.6, 0.8}}
	if c := meanCentre(a, 0, 1); math.Abs(c-0.3) > 1e-9 {
		t.Errorf("0-1 s: %.3f, want 0.3", c)
	}
	if c := meanCentre(a, 1.1, 1.2); c != 0.6 {
		t.Errorf("a shot between window middles: %.3f, want the nearest window's 0.6", c)
	}
}

func TestShrinkAveragesBlocks(t *testing.T) {
	t.Parallel()
	// A 6x3 frame shrunk 3 times: two blocks, their means rounded.
	src := []byte{
		0, 3, 6, 10, 10, 10,
		0, 3, 6, 10, 10, 10,
		0, 3, 6, 10, 10, 11,
	}
	dst := make([]byte, 2)
	shrink(src, 6, dst, 2, 1, 3)
	if dst[0] != 3 || dst[1] != 10 {
		t.Errorf("shrink = %v, want [3 10]", dst)
	}
}

func TestShrinkAllFactorsAgree(t *testing.T) {
	t.Parallel()
	// Each factor's fast path gives the plain block mean.
	const w, h = 12, 12
	src := make([]byte, w*h)
	for i := range src {
		src[i] = byte(i * 37 % 251)
	}
	for _, k := range []int{1, 2, 3, 4} {
		dw, dh := w/k, h/k
		dst := make([]byte, dw*dh)
		shrink(src, w, dst, dw, dh, k)
		for y := range dh {
			for x := range dw {
				sum := 0
				for dy := range k {
					for dx := range k {
						sum += int(src[(y*k+dy)*w+x*k+dx])
					}
				}
				if want := byte((sum + k*k/2) / (k * k)); dst[y*dw+x] != want {
					t.Fatalf("k %d: block %d,%d = %d, want %d", k, x, y, dst[y*dw+x], want)
				}
			}
		}
	}
}
