package pipeline

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe/speechtest"
)

// ffmpegRun runs ffmpeg with args or fails the test.
func ffmpegRun(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("ffmpeg", append([]string{"-v", "error", "-y"}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg %v: %v\n%s", args, err, out)
	}
}

// frameShare is the share of the pixels of path's frame at sec (scaled to
// 100x100) within [x0,x1)x[y0,y1) whose RGB is within 40 of c.
func frameShare(t *testing.T, path string, sec float64, x0, y0, x1, y1 int, c [3]int) float64 {
	t.Helper()
	out := filepath.Join(t.TempDir(), "f.rgb")
	ffmpegRun(t, "-ss", strconv.FormatFloat(sec, 'f', 3, 64), "-i", path, "-frames:v", "1", "-vf", "scale=100:100",
		"-f", "rawvideo", "-pix_fmt", "rgb24", out)
	f, err := os.ReadFile(out)
	if err != nil || len(f) != 100*100*3 {
		t.Fatalf("frame at %.2f s: %d bytes, %v", sec, len(f), err)
	}
	n, in := 0, 0
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			p := f[(y*100+x)*3:]
			n++
			if math.Abs(float64(int(p[0])-c[0])) <= 40 && math.Abs(float64(int(p[1])-c[1])) <= 40 && math.Abs(float64(int(p[2])-c[2])) <= 40 {
				in++
			}
		}
	}
	return float64(in) / float64(n)
}

// halfSecondLevels is the RMS level (dBFS) of each half second of path's audio.
func halfSecondLevels(t *testing.T, path string) []float64 {
	t.Helper()
	out := filepath.Join(t.TempDir(), "a.raw")
	ffmpegRun(t, "-i", path, "-vn", "-ac", "1", "-ar", "16000", "-f", "s16le", out)
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	const win = 8000
	var dbs []float64
	for i := 0; i+2*win <= len(raw); i += 2 * win {
		var sum float64
		for j := i; j < i+2*win; j += 2 {
			v := float64(int16(uint16(raw[j]) | uint16(raw[j+1])<<8))
			sum += v * v
		}
		dbs = append(dbs, 10*math.Log10(sum/win/(32768*32768)+1e-12))
	}
	return dbs
}

// With enableBroll, the clip cuts away to the org's b-roll picture while
// its keyword is spoken (festival speech) and only then, the speech going
// on underneath; a screen overlay from an upload sits at its rect all along.
func TestBrollAndOverlayInARender(t *testing.T) {
	requireFFmpeg(t)
	dir := t.TempDir()
	src, spans := speechtest.Video(t, dir, []string{"we walked home slowly", "the oven", "then we slept until the morning came"}, 0.6)
	e := newEnv(t)
	e.cfg.Transcriber = knownWords{
		{Text: "walked", Start: spans[0].Start, End: spans[0].End, Confidence: 1},
		{Text: "oven", Start: spans[1].Start, End: spans[1].End, Confidence: 1},
		{Text: "slept", Start: spans[2].Start, End: spans[2].End, Confidence: 1},
	}
	e.runner()
	ctx := context.Background()

	png, logo := filepath.Join(dir, "magenta.png"), filepath.Join(dir, "logo.png")
	ffmpegRun(t, "-f", "lavfi", "-i", "color=c=0xFF00FF:s=320x240", "-frames:v", "1", png)
	ffmpegRun(t, "-f", "lavfi", "-i", "color=c=0x00FF00:s=100x100", "-frames:v", "1", logo)
	// An item whose picture is gone from the store is skipped.
	if err := e.st.AddBrollItem(ctx, &store.BrollItem{OrgID: testOrg, Name: "lost.png", Key: blob.BrollKey(testOrg, "b0", ".png"), Keywords: []string{"walk"}, Still: true, Width: 2, Height: 2}); err != nil {
		t.Fatal(err)
	}
	item := &store.BrollItem{OrgID: testOrg, Name: "magenta.png", Key: blob.BrollKey(testOrg, "b1", ".png"), Keywords: []string{"ovens"}, Still: true, Width: 320, Height: 240}
	f, err := os.Open(png)
	if err != nil {
		t.Fatal(err)
	}
	if err := blob.Write(ctx, e.media, item.Key, f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := e.st.AddBrollItem(ctx, item); err != nil {
		t.Fatal(err)
	}
	overlay := apitypes.ScreenOverlay{Object: &apitypes.StoredFile{ID: e.upload(logo)},
		Rect: &apitypes.Rect{XPct: f64(60), YPct: f64(5), WPct: f64(30), HPct: f64(20)}}

	end := spans[2].End + 0.3
	render := func(broll bool) (apitypes.ExportableClip, string) {
		id := e.create(apitypes.CreateProjectRequest{
			VideoURL:     e.upload(src),
			CurationPref: &apitypes.CurationPref{SkipCurate: yes(), Range: &apitypes.Range{StartSec: f64(0), EndSec: f64(end)}},
			RenderPref: &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectSquare, EnableBroll: &broll,
				ScreenOverlays: []apitypes.ScreenOverlay{overlay}},
		})
		if p := e.waitDone(id); p.Stage != apitypes.StageComplete {
			t.Fatalf("stage = %s, error %v", p.Stage, deref(p.Error))
		}
		clips, err := e.st.ListClips(ctx, id, 0, 100)
		if err != nil || len(clips) != 1 {
			t.Fatalf("clips %v, %v; want 1", clips, err)
		}
		return clips[0], filepath.Join(e.dir, "media", id, clips[0].CurationID+".mp4")
	}
	on, withBroll := render(true)
	_, without := render(false)
	if on.RenderPref == nil || !isTrue(on.RenderPref.EnableBroll) || len(on.RenderPref.ScreenOverlays) != 1 {
		t.Errorf("reported renderPref %+v", on.RenderPref)
	}

	// The cut-away: from the word's start for the word plus 1 s, at least 1.5 s.
	cutEnd := spans[1].Start + max(1.5, spans[1].End-spans[1].Start+1)
	magenta, green := [3]int{255, 0, 255}, [3]int{0, 255, 0}
	for _, sec := range []float64{spans[0].Start + 0.2, spans[1].Start - 0.3, spans[1].Start + 0.1, (spans[1].Start + spans[1].End) / 2, cutEnd - 0.1, cutEnd + 0.3, spans[2].End - 0.2} {
		during := sec > spans[1].Start && sec < cutEnd
		share := frameShare(t, withBroll, sec, 0, 30, 100, 100, magenta)
		t.Logf("%.2f s: %.0f%% of the picture below the overlay is the b-roll's magenta", sec, share*100)
		if (share > 0.95) != during {
			t.Errorf("at %.2f s (cut-away %.2f-%.2f s): b-roll shown %v, want %v", sec, spans[1].Start, cutEnd, share > 0.95, during)
		}
		if s := frameShare(t, without, sec, 0, 30, 100, 100, magenta); s > 0.5 {
			t.Errorf("at %.2f s without enableBroll: %.0f%% magenta", sec, s*100)
		}
		// The 100x100 logo fits its 30%x20% box as a 20%x20% square in its middle.
		for _, clip := range []string{withBroll, without} {
			if s := frameShare(t, clip, sec, 67, 7, 83, 23, green); s < 0.95 {
				t.Errorf("at %.2f s: %.0f%% of the overlay's box is its green", sec, s*100)
			}
		}
	}
	a, b := halfSecondLevels(t, withBroll), halfSecondLevels(t, without)
	if len(a) != len(b) || len(a) < 4 {
		t.Fatalf("audio levels %v and %v", a, b)
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 0.5 {
			t.Errorf("half second %d: %.2f dB with the b-roll, %.2f dB without", i, a[i], b[i])
		}
	}
}
