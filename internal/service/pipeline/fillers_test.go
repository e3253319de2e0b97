package pipeline

import (
	"reflect"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

func TestFillerCuts(t *testing.T) {
	t.Parallel()
	h := media.Highlight{Start: 10, End: 16}
	words := []transcribe.Word{
		{Text: "so", Start: 10.2, End: 10.5}, {Text: "um", Start: 10.6, End: 11}, {Text: "the", Start: 11.1, End: 11.3},
		{Text: "garden", Start: 11.3, End: 11.9}, {Text: "UH", Start: 12, End: 12.5}, {Text: "grows", Start: 12.6, End: 13},
	}
	keep := fillerKeep(h, words)
	wantKeep := []media.Interval{{Start: 10, End: 10.6}, {Start: 11, End: 12}, {Start: 12.5, End: 16}}
	if !reflect.DeepEqual(keep, wantKeep) {
		t.Fatalf("keep %v, want %v", keep, wantKeep)
	}
	if got, want := timeRanges(h, keep), [][2]int64{{10000, 10600}, {11000, 12000}, {12500, 16000}}; !reflect.DeepEqual(got, want) {
		t.Errorf("timeRanges %v, want %v", got, want)
	}
	if got, want := timeRanges(h, nil), [][2]int64{{10000, 16000}}; !reflect.DeepEqual(got, want) {
		t.Errorf("timeRanges without cuts %v, want %v", got, want)
	}
	var texts []string
	var starts []int64
	for _, w := range clipWords(words, h, keep) {
		texts = append(texts, w.Text)
		starts = append(starts, ms(w.Start))
	}
	if want := []string{"so", "the", "garden", "grows"}; !reflect.DeepEqual(texts, want) {
		t.Errorf("words %v, want %v", texts, want)
	}
	if want := []int64{200, 700, 900, 1700}; !reflect.DeepEqual(starts, want) {
		t.Errorf("word starts %v ms, want %v", starts, want)
	}
	if k := fillerKeep(h, words[:1]); k != nil {
		t.Errorf("no fillers: keep %v, want nil", k)
	}
	if k := fillerKeep(h, []transcribe.Word{{Text: "um", Start: 9, End: 17}}); k != nil {
		t.Errorf("all filler: keep %v, want nil", k)
	}
	if w := clipWords(words[:1], h, nil); ms(w[0].Start) != 200 || words[0].Start != 10.2 {
		t.Errorf("uncut words: %v (source words changed: %v)", w, words[0])
	}
}

func TestRemoveFillersPref(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	on := apitypes.RenderPref{QuickstartConfig: &apitypes.QuickstartConfig{EnableRemoveFillerWords: &yes}}
	off := apitypes.RenderPref{QuickstartConfig: &apitypes.QuickstartConfig{EnableRemoveFillerWords: &no}}
	for _, c := range []struct {
		base, rp apitypes.RenderPref
		want     bool
	}{{apitypes.RenderPref{}, apitypes.RenderPref{}, false}, {on, apitypes.RenderPref{}, true}, {on, off, false}, {off, on, true}} {
		if got := removeFillers(c.base, c.rp); got != c.want {
			t.Errorf("removeFillers(%+v, %+v) = %v", c.base.QuickstartConfig, c.rp.QuickstartConfig, got)
		}
	}
	for w, want := range map[string]bool{"um": true, "Uh": true, " er ": true, "ah": true, "oh": false, "umbrella": false} {
		if transcribe.IsFiller(w) != want {
			t.Errorf("IsFiller(%q) != %v", w, want)
		}
	}
}
