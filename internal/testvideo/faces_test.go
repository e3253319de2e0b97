package testvideo

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/faces"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// grayFrames decodes path at fps, scaled to w x h gray, one slice per frame.
func grayFrames(t *testing.T, path string, fps float64, w, h int) [][]byte {
	t.Helper()
	cmd := toolexec.Command(context.Background(), "ffmpeg", "-nostdin", "-v", "error", "-i", toolexec.LocalURL(path),
		"-vf", fmt.Sprintf("fps=%g,scale=%d:%d,format=gray", fps, w, h), "-f", "rawvideo", "pipe:1")
	out, err := cmd.Output()
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

// TestFaceVideosShowTheFacesTheyReport detects the faces of every generator's
// video with pigo and compares them with the layout it returned.
func TestFaceVideosShowTheFacesTheyReport(t *testing.T) {
	requireTools(t)
	ctx := context.Background()
	opts := FaceOptions{Duration: 4 * time.Second, Silent: true}
	cases := map[string]func(path string) (*FaceLayout, error){
		"moving": func(p string) (*FaceLayout, error) { return MovingFace(ctx, p, opts) },
		"cut":    func(p string) (*FaceLayout, error) { return FaceCut(ctx, p, opts) },
		"two":    func(p string) (*FaceLayout, error) { return TwoFaces(ctx, p, 0, opts) },
		"screen": func(p string) (*FaceLayout, error) { return ScreenWithFace(ctx, p, opts) },
		"three":  func(p string) (*FaceLayout, error) { return GroupOfFaces(ctx, p, 3, opts) },
		"four":   func(p string) (*FaceLayout, error) { return GroupOfFaces(ctx, p, 4, opts) },
	}
	const fps, w, h = 2.0, 256, 144 // the size the analysis pass detects at
	for name, gen := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name+".mp4")
			l, err := gen(path)
			if err != nil {
				t.Fatal(err)
			}
			if l.Width != 1280 || l.Height != 720 || l.Duration != 4 {
				t.Fatalf("layout %dx%d %.2fs, want 1280x720 4s", l.Width, l.Height, l.Duration)
			}
			p := ffprobe(t, path)
			if p.width != 1280 || p.height != 720 || p.audio != "aac" || math.Abs(p.duration-4) > 0.1 {
				t.Fatalf("file %dx%d %.2fs audio %q, want 1280x720 4s with aac", p.width, p.height, p.duration, p.audio)
			}
			frames := grayFrames(t, path, fps, w, h)
			if len(frames) < 7 {
				t.Fatalf("%d frames decoded", len(frames))
			}
			for i, fr := range frames {
				ts := (float64(i) + 0.5) / fps // fps picks the frame nearest the middle of each interval
				want := l.FacesAt(ts)
				got := faces.Detect(fr, w, h)
				if len(got) != len(want) {
					t.Errorf("t=%.2f: %d faces detected %v, layout has %d %v", ts, len(got), got, len(want), want)
					continue
				}
				for _, f := range want {
					if !found(got, f, w, h) {
						t.Errorf("t=%.2f: face %+v not detected within 4%% of the width (detected %v)", ts, f, got)
					}
				}
			}
		})
	}
}

// found: a detected face at f's place (centre within 4% of the width and 5%
// of the height) and of about its size: the detector's scales are 20% apart,
// so sides come out up to a third larger or smaller.
func found(got []faces.Box, f FacePos, w, h int) bool {
	for _, b := range got {
		if math.Abs(b.X/float64(w)-f.X) < 0.04 && math.Abs(b.Y/float64(h)-f.Y) < 0.05 &&
			math.Abs(b.Size/float64(h)-f.Size) < 0.35*f.Size {
			return true
		}
	}
	return false
}

// TestFaceVideoSpeaks: without Silent the track holds the speech the layout reports.
func TestFaceVideoSpeaks(t *testing.T) {
	requireTools(t)
	path := filepath.Join(t.TempDir(), "speaks.mp4")
	l, err := TwoFaces(context.Background(), path, 1, FaceOptions{Duration: 8 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if l.Voice == "" || len(l.Speech) == 0 {
		t.Fatalf("voice %q, %d sentences: want speech", l.Voice, len(l.Speech))
	}
	if !l.Shots[0].Faces[1].Speaks || l.Shots[0].Faces[0].Speaks {
		t.Errorf("speaker flags %+v, want the right face only", l.Shots[0].Faces)
	}
	if p := ffprobe(t, path); p.audio != "aac" || math.Abs(p.duration-8) > 0.1 {
		t.Errorf("audio %q over %.2fs, want aac over 8s", p.audio, p.duration)
	}
}

func TestFaceOptionsAreChecked(t *testing.T) {
	ctx := context.Background()
	for name, err := range map[string]error{
		"short":   func() error { _, err := MovingFace(ctx, "x.mp4", FaceOptions{Duration: time.Second}); return err }(),
		"odd":     func() error { _, err := MovingFace(ctx, "x.mp4", FaceOptions{Width: 641, Height: 360}); return err }(),
		"speaker": func() error { _, err := TwoFaces(ctx, "x.mp4", 2, FaceOptions{}); return err }(),
		"group":   func() error { _, err := GroupOfFaces(ctx, "x.mp4", 5, FaceOptions{}); return err }(),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
