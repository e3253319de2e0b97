package pipeline

import (
	"slices"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

// soundOptions resolves voice enhancement and transitions from the brand template (base)
// and renderPref (rp) into opts, and reports what was applied on used.
func soundOptions(base, rp apitypes.RenderPref, opts *media.RenderOptions, used *apitypes.RenderPref) {
	voice := pick(base.EnableVoiceEnhancement, rp.EnableVoiceEnhancement)
	opts.Voice = voice
	used.EnableVoiceEnhancement = &voice

	auto := pick(base.EnableAutoTransition, rp.EnableAutoTransition)
	names := rp.SelectedTransitions
	if names == nil {
		names = base.SelectedTransitions
	}
	// The API refuses unknown names; a template stored before a name was dropped keeps the
	// ones still known.
	var known []string
	for _, n := range names {
		if n = rules.TransitionName(n); media.ValidTransition(n) {
			known = append(known, n)
		}
	}
	opts.Transitions = media.Transitions{Names: known, AtShots: auto}
	used.EnableAutoTransition = &auto
	used.SelectedTransitions = known
	if auto && len(known) == 0 {
		used.SelectedTransitions = []string{media.DefaultTransition}
	}
}

// planJoins are the transitions of the clip pl as opts renders it.
func planJoins(pl *clipPlan, opts media.RenderOptions, source *media.ProbeResult) []media.Join {
	duration := pl.h.End
	if source != nil {
		duration = source.DurationSec
	}
	return media.ClipJoins(pl.h, duration, opts)
}

// planWords are the clip's words in the rendered clip's time: through its kept pieces, then
// moved earlier by the transitions' overlaps before them (by a word's middle, so a word
// ending in an overlap keeps its length).
func planWords(pl *clipPlan) []transcribe.Word {
	words := clipWords(pl.words, pl.h, pl.keep)
	if media.Overlap(pl.joins) == 0 {
		return words
	}
	words = slices.Clone(words)
	for i, w := range words {
		mid := (w.Start + w.End) / 2
		shift := mid - media.ClipTime(pl.joins, mid)
		words[i].Start, words[i].End = max(0, w.Start-shift), max(0, w.End-shift)
	}
	return words
}
