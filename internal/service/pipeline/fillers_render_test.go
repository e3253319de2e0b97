package pipeline

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe/speechtest"
)

// knownWords is a recogniser that hears the words it was given (pocketsphinx
// hears festival's "um" as "on", so the words come from where festival spoke).
type knownWords []transcribe.Word

func (k knownWords) Transcribe(context.Context, string, string) ([]transcribe.Word, error) {
	return append([]transcribe.Word(nil), k...), nil
}
func (knownWords) Describe() string { return "known words" }

// A clip with filler removal loses the filler's length; durationMs and
// timeRanges say what was kept, and the captions skip the filler.
func TestRemoveFillerWordsShortensTheClip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src, spans := speechtest.Video(t, dir, []string{"the garden needs water", "um", "it grows fast"}, 0.4)
	e := newEnv(t)
	e.cfg.Transcriber = knownWords{
		{Text: "garden", Start: spans[0].Start, End: spans[0].End, Confidence: 1},
		{Text: "um", Start: spans[1].Start, End: spans[1].End, Confidence: 1},
		{Text: "grows", Start: spans[2].Start, End: spans[2].End, Confidence: 1},
	}
	e.runner()
	end := spans[2].End + 0.3
	run := func(remove bool) (store.Clip, string) {
		id := e.create(apitypes.CreateProjectRequest{
			VideoURL:     e.upload(src),
			CurationPref: &apitypes.CurationPref{SkipCurate: yes(), Range: &apitypes.Range{StartSec: f64(0), EndSec: f64(end)}},
			RenderPref: &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectSquare, EnableCaption: yes(),
				QuickstartConfig: &apitypes.QuickstartConfig{EnableRemoveFillerWords: &remove}},
		})
		if p := e.waitDone(id); p.Stage != apitypes.StageComplete {
			t.Fatalf("stage = %s, error %v", p.Stage, deref(p.Error))
		}
		clips, err := e.st.ListClips(context.Background(), id, 0, 100)
		if err != nil || len(clips) != 1 {
			t.Fatalf("clips %v, %v; want 1", clips, err)
		}
		srt, err := os.ReadFile(filepath.Join(e.dir, "media", id, clips[0].CurationID+".srt"))
		if err != nil {
			t.Fatal(err)
		}
		return clips[0], string(srt)
	}
	whole, wholeSRT := run(false)
	cut, cutSRT := run(true)
	filler := spans[1].End - spans[1].Start
	short := float64(whole.DurationMs-cut.DurationMs) / 1000
	t.Logf("whole %d ms %v, cut %d ms %v: shorter by %.3f s, the filler lasts %.3f s", whole.DurationMs, whole.TimeRanges, cut.DurationMs, cut.TimeRanges, short, filler)
	if math.Abs(short-filler) > 0.1 {
		t.Errorf("the cut clip is %.3f s shorter, want the filler's %.3f s", short, filler)
	}
	if len(whole.TimeRanges) != 1 || len(cut.TimeRanges) != 2 ||
		cut.TimeRanges[0][1] != ms(spans[1].Start) || cut.TimeRanges[1][0] != ms(spans[1].End) {
		t.Errorf("timeRanges %v, want the range split around the filler %.3f-%.3f", cut.TimeRanges, spans[1].Start, spans[1].End)
	}
	if !strings.Contains(wholeSRT, "um") || strings.Contains(cutSRT, "um") || !strings.Contains(cutSRT, "grows") {
		t.Errorf("captions:\n%s\nthen, cut:\n%s", wholeSRT, cutSRT)
	}
	if cut.RenderPref == nil || cut.RenderPref.QuickstartConfig == nil || !isTrue(cut.RenderPref.QuickstartConfig.EnableRemoveFillerWords) {
		t.Errorf("reported renderPref %+v", cut.RenderPref)
	}
}
