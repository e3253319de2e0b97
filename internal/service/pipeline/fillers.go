package pipeline

import (
	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

// removeFillers is quickstartConfig.enableRemoveFillerWords, from renderPref
// when set there, else from the brand template.
func removeFillers(base, rp apitypes.RenderPref) bool {
	var b, o *bool
	if base.QuickstartConfig != nil {
		b = base.QuickstartConfig.EnableRemoveFillerWords
	}
	if rp.QuickstartConfig != nil {
		o = rp.QuickstartConfig.EnableRemoveFillerWords
	}
	return pick(b, o)
}

// fillerKeep is the pieces of the clip left when its filler words are cut
// out, or nil when there is nothing to cut (or nothing would be left).
func fillerKeep(h media.Highlight, words []transcribe.Word) []media.Interval {
	var cuts []media.Interval
	for _, w := range words {
		if transcribe.IsFiller(w.Text) {
			cuts = append(cuts, media.Interval{Start: w.Start, End: w.End})
		}
	}
	if len(cuts) == 0 {
		return nil
	}
	keep := media.KeptRanges(media.Interval{Start: h.Start, End: h.End}, cuts)
	if len(keep) == 0 || (len(keep) == 1 && keep[0] == media.Interval{Start: h.Start, End: h.End}) {
		return nil
	}
	return keep
}

// clipWords are the words of a clip timed in seconds from the clip's start:
// with pieces kept, the words inside them moved up over the cuts (words cut
// out, fillers among them, are dropped).
func clipWords(words []transcribe.Word, h media.Highlight, keep []media.Interval) []transcribe.Word {
	if len(keep) == 0 {
		out := make([]transcribe.Word, len(words))
		for i, w := range words {
			w.Start, w.End = w.Start-h.Start, w.End-h.Start
			out[i] = w
		}
		return out
	}
	var out []transcribe.Word
	for _, w := range words {
		at := 0.0
		for _, k := range keep {
			if mid := (w.Start + w.End) / 2; mid >= k.Start && mid < k.End && !transcribe.IsFiller(w.Text) {
				w.Start, w.End = at+max(0, w.Start-k.Start), at+min(k.End, w.End)-k.Start
				out = append(out, w)
				break
			}
			at += k.End - k.Start
		}
	}
	return out
}

// timeRanges are a clip's source ranges in milliseconds: the kept pieces, or
// its whole span.
func timeRanges(h media.Highlight, keep []media.Interval) [][2]int64 {
	if len(keep) == 0 {
		return [][2]int64{{ms(h.Start), ms(h.End)}}
	}
	out := make([][2]int64, len(keep))
	for i, k := range keep {
		out[i] = [2]int64{ms(k.Start), ms(k.End)}
	}
	return out
}
