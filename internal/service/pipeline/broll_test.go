package pipeline

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe/speechtest"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo/mediacheck"
)

// With enableBroll, the clip cuts away to the org's b-roll picture while
// its keyword is spoken (festival speech) and only then, the speech going
// on underneath; a screen overlay from an upload sits at its rect all along.
func TestBrollAndOverlayInARender(t *testing.T) {
	t.Parallel()
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
	mediacheck.FFmpeg(t, "-f", "lavfi", "-i", "color=c=0xFF00FF:s=320x240", "-frames:v", "1", png)
	mediacheck.FFmpeg(t, "-f", "lavfi", "-i", "color=c=0x00FF00:s=100x100", "-frames:v", "1", logo)
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
	render := func(broll bool) (store.Clip, string) {
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
		share := mediacheck.FrameAt(t, withBroll, sec, 100, 100).Share(0, 30, 100, 100, magenta)
		t.Logf("%.2f s: %.0f%% of the picture below the overlay is the b-roll's magenta", sec, share*100)
		if (share > 0.95) != during {
			t.Errorf("at %.2f s (cut-away %.2f-%.2f s): b-roll shown %v, want %v", sec, spans[1].Start, cutEnd, share > 0.95, during)
		}
		if s := mediacheck.FrameAt(t, without, sec, 100, 100).Share(0, 30, 100, 100, magenta); s > 0.5 {
			t.Errorf("at %.2f s without enableBroll: %.0f%% magenta", sec, s*100)
		}
		// The 100x100 logo fits its 30%x20% box as a 20%x20% square in its middle.
		for _, clip := range []string{withBroll, without} {
			if s := mediacheck.FrameAt(t, clip, sec, 100, 100).Share(67, 7, 83, 23, green); s < 0.95 {
				t.Errorf("at %.2f s: %.0f%% of the overlay's box is its green", sec, s*100)
			}
		}
	}
	a, b := mediacheck.Levels(t, withBroll, 0, 0), mediacheck.Levels(t, without, 0, 0)
	if len(a) != len(b) || len(a) < 4 {
		t.Fatalf("audio levels %v and %v", a, b)
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 0.5 {
			t.Errorf("half second %d: %.2f dB with the b-roll, %.2f dB without", i, a[i], b[i])
		}
	}
}

// screenOverlayFileId is the one-overlay form, an upload drawn over the
// whole frame; enableScreenOverlay false in renderPref turns it off.
func TestScreenOverlayFileIdCoversTheFrame(t *testing.T) {
	t.Parallel()
	requireFFmpeg(t)
	e := newEnv(t)
	e.runner()
	ctx := context.Background()
	green := filepath.Join(e.dir, "green.png")
	mediacheck.FFmpeg(t, "-f", "lavfi", "-i", "color=c=0x00FF00:s=100x100", "-frames:v", "1", green)
	id := e.upload(green)
	src := e.upload(testVideo(t))
	render := func(enable *bool) (store.Clip, string) {
		p := e.create(apitypes.CreateProjectRequest{
			VideoURL:     src,
			CurationPref: &apitypes.CurationPref{SkipCurate: yes(), Range: &apitypes.Range{StartSec: f64(0), EndSec: f64(4)}},
			RenderPref:   &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectSquare, ScreenOverlayFileID: &id, EnableScreenOverlay: enable},
		})
		if got := e.waitDone(p); got.Stage != apitypes.StageComplete {
			t.Fatalf("stage = %s, error %v", got.Stage, deref(got.Error))
		}
		clips, err := e.st.ListClips(ctx, p, 0, 100)
		if err != nil || len(clips) != 1 {
			t.Fatalf("clips %v, %v; want 1", clips, err)
		}
		return clips[0], filepath.Join(e.dir, "media", p, clips[0].CurationID+".mp4")
	}
	off := false
	on, covered := render(nil)
	_, bare := render(&off)
	if s := mediacheck.FrameAt(t, covered, 1, 100, 100).Share(0, 0, 100, 100, [3]int{0, 255, 0}); s < 0.95 {
		t.Errorf("with screenOverlayFileId: %.0f%% of the frame is the overlay's green, want all", s*100)
	}
	if s := mediacheck.FrameAt(t, bare, 1, 100, 100).Share(0, 0, 100, 100, [3]int{0, 255, 0}); s > 0.05 {
		t.Errorf("with enableScreenOverlay false: %.0f%% of the frame is the overlay's green, want none", s*100)
	}
	if rp := on.RenderPref; rp == nil || !isTrue(rp.EnableScreenOverlay) || rp.ScreenOverlayFileID == nil || *rp.ScreenOverlayFileID != id {
		t.Errorf("reported renderPref %+v: want enableScreenOverlay true and the file id", rp)
	}
}
