package censorjobs

import (
	"cmp"
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

// profanityText is the embedded profanity list (profanity.txt).
//
//go:embed profanity.txt
var profanityText string

// profanity is the set of words of profanityText; keyphrases are the same
// words with their keyword-spotting thresholds.
var profanity, keyphrases = func() (map[string]bool, []transcribe.Keyphrase) {
	set := map[string]bool{}
	var list []transcribe.Keyphrase
	for i, line := range strings.Split(profanityText, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) != 2 {
			panic(fmt.Sprintf("profanity.txt line %d: want a word and its threshold, not %q", i+1, line))
		}
		threshold, err := strconv.ParseFloat(f[1], 64)
		if err != nil || !(threshold > 0) {
			panic(fmt.Sprintf("profanity.txt line %d: threshold %q is not a number above 0", i+1, f[1]))
		}
		w := strings.ToLower(f[0])
		set[w] = true
		list = append(list, transcribe.Keyphrase{Phrase: w, Threshold: threshold})
	}
	return set, list
}()

// Keyphrases are the words of the profanity list with the thresholds the
// keyword-spotting pass detects them at (tuned on festival speech: see
// bench/history/censor.md, "Its thresholds").
func Keyphrases() []transcribe.Keyphrase { return slices.Clone(keyphrases) }

// Profane reports whether a transcript word is on the profanity list: the
// word lower-cased, without a pronunciation suffix ("damn(2)") or the
// punctuation around it.
func Profane(word string) bool {
	w := strings.ToLower(word)
	if i := strings.IndexByte(w, '('); i > 0 {
		w = w[:i]
	}
	w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	return profanity[w]
}

// Spans are where the profane words of a transcript are spoken within the
// clip [clipStartMs, clipEndMs) of the source, in seconds of the clip, each
// exactly the word's span cut to the clip.
func Spans(words []store.TranscriptWord, clipStartMs, clipEndMs int64) []media.CensorSpan {
	var spans []media.CensorSpan
	for _, w := range words {
		start, end := max(w.StartMs, clipStartMs), min(w.EndMs, clipEndMs)
		if end <= start || !Profane(w.Word) {
			continue
		}
		spans = append(spans, media.CensorSpan{
			Start: float64(start-clipStartMs) / 1000, End: float64(end-clipStartMs) / 1000,
		})
	}
	return spans
}

// padBefore widens a spotted word's span at its start: on festival speech
// the spotter's edges fall within 0.2 s of the word's (median start +0.01
// s, end +0.03 s: bench/history/censor.md), and a word's onset is what a
// listener recognises it by, so the span starts a little early. Its end is
// left.
const padBefore = 0.05

// Pad is the span censored for a word spotted from start to end seconds.
func Pad(start, end float64) media.CensorSpan {
	return media.CensorSpan{Start: max(0, start-padBefore), End: end}
}

// Merge joins overlapping or touching spans (a word both spotted and in the
// transcript is censored once) and sorts them by start.
func Merge(spans []media.CensorSpan) []media.CensorSpan {
	sorted := slices.Clone(spans)
	slices.SortFunc(sorted, func(a, b media.CensorSpan) int { return cmp.Compare(a.Start, b.Start) })
	var out []media.CensorSpan
	for _, s := range sorted {
		if s.End <= s.Start {
			continue
		}
		if n := len(out); n > 0 && s.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, s.End)
			continue
		}
		out = append(out, s)
	}
	return out
}
