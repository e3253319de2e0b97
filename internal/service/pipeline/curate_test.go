package pipeline

import (
	"context"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo/videotest"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

func TestCurationKeywords(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		cp   apitypes.CurationPref
		want []string
	}{
		{"none", apitypes.CurationPref{}, nil},
		{"topicKeywords split into words", apitypes.CurationPref{TopicKeywords: []string{"Machine learning", "the rockets"}}, []string{"Machine", "learning", "rockets"}},
		{"customPrompt without stop words", apitypes.CurationPref{Model: apitypes.ModelClipAnything, CustomPrompt: "Find the parts about the moon, and rockets!"}, []string{"Find", "parts", "moon", "rockets"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := curationKeywords(c.cp); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// With pocketsphinx transcribing festival's speech, the clips of a project
// begin and end at the sentences the test video speaks.
func TestClipsFollowTheSentences(t *testing.T) {
	t.Parallel()
	toolexectest.RequireTools(t, "festival", transcribe.PocketsphinxTool)
	src, layout := videotest.Shared(t, testvideo.Options{Duration: 40 * time.Second, Width: 320, Height: 240})
	if layout.Voice != testvideo.VoiceFestival {
		t.Fatalf("the test video speaks with %s, want festival", layout.Voice)
	}
	e := newEnv(t)
	e.cfg.Transcriber = &transcribe.Pocketsphinx{}
	e.runner()
	id := e.create(apitypes.CreateProjectRequest{
		VideoURL:     e.upload(src),
		CurationPref: &apitypes.CurationPref{ClipDurations: [][2]float64{{6, 12}}},
	})
	if p := e.waitDone(id); p.Stage != apitypes.StageComplete {
		t.Fatalf("stage = %s, error %v; want COMPLETE", p.Stage, deref(p.Error))
	}
	clips, err := e.st.ListClips(context.Background(), id, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	nearest := func(ms int64, start bool) float64 {
		best := math.Inf(1)
		for _, s := range layout.Speech {
			edge := s.End
			if start {
				edge = s.Start
			}
			best = min(best, math.Abs(float64(ms)/1000-edge))
		}
		return best
	}
	worst := 0.0
	for _, c := range clips {
		for _, tr := range c.TimeRanges {
			ds, de := nearest(tr[0], true), nearest(tr[1], false)
			worst = max(worst, ds, de)
			if ds > 0.3 || de > 0.3 {
				t.Errorf("clip %s %v: %.2f s from a sentence start, %.2f s from a sentence end; want <= 0.3 s", c.CurationID, tr, ds, de)
			}
		}
		t.Logf("clip %s %v: %q", c.CurationID, c.TimeRanges, c.Text)
	}
	t.Logf("%d clips from 40 s, worst boundary error %.3f s", len(clips), worst)
	if len(clips) < 2 {
		t.Errorf("%d clips of 6-12 s from 40 s of talk, want at least 2", len(clips))
	}
}
