package pipeline

import (
	"math"
	"slices"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

// renderPref overrides the template; unknown names in a stored template are dropped; the
// applied values are reported.
func TestSoundOptionsResolveAndReport(t *testing.T) {
	t.Parallel()
	on, off := true, false
	base := apitypes.RenderPref{EnableVoiceEnhancement: &on, EnableAutoTransition: &on, SelectedTransitions: []string{"Fade", "gone", " slideup"}}
	var opts media.RenderOptions
	var used apitypes.RenderPref
	soundOptions(base, apitypes.RenderPref{}, &opts, &used)
	if !opts.Voice || !opts.Transitions.AtShots || !slices.Equal(opts.Transitions.Names, []string{"fade", "slideup"}) {
		t.Errorf("from the template: %+v", opts)
	}
	if !*used.EnableVoiceEnhancement || !*used.EnableAutoTransition || !slices.Equal(used.SelectedTransitions, []string{"fade", "slideup"}) {
		t.Errorf("reported %+v", used)
	}
	opts, used = media.RenderOptions{}, apitypes.RenderPref{}
	soundOptions(base, apitypes.RenderPref{EnableVoiceEnhancement: &off, EnableAutoTransition: &off, SelectedTransitions: []string{}}, &opts, &used)
	if opts.Voice || opts.Transitions.On() || *used.EnableVoiceEnhancement || *used.EnableAutoTransition {
		t.Errorf("renderPref turning them off: %+v, reported %+v", opts, used)
	}
}

// Captions follow the overlaps: a word after a join moves earlier by the transition, a word
// ending at the join keeps its length, and the clip's length loses the overlap.
func TestPlanWordsFollowTheOverlaps(t *testing.T) {
	t.Parallel()
	pl := &clipPlan{
		h:    media.Highlight{Start: 10, End: 16},
		keep: []media.Interval{{Start: 10, End: 12}, {Start: 13, End: 16}},
		words: []transcribe.Word{
			{Text: "before", Start: 11.5, End: 12}, {Text: "um", Start: 12.2, End: 12.8}, {Text: "after", Start: 13, End: 13.5},
		},
	}
	pl.joins = planJoins(pl, media.RenderOptions{Keep: pl.keep, Transitions: media.Transitions{Names: []string{"fade"}}}, &media.ProbeResult{DurationSec: 20})
	got := planWords(pl)
	want := []transcribe.Word{{Text: "before", Start: 1.5, End: 2}, {Text: "after", Start: 1.7, End: 2.2}}
	if len(got) != len(want) {
		t.Fatalf("words %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Text != want[i].Text || math.Abs(got[i].Start-want[i].Start) > 1e-9 || math.Abs(got[i].End-want[i].End) > 1e-9 {
			t.Errorf("word %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if l := clipLength(pl); math.Abs(l-4.7) > 1e-9 {
		t.Errorf("clip length %v, want 4.7", l)
	}
}
