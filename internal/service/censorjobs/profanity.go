package censorjobs

import (
	_ "embed"
	"strings"
	"unicode"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// profanityText is the embedded profanity list (profanity.txt).
//
//go:embed profanity.txt
var profanityText string

// profanity is the set of words of profanityText.
var profanity = func() map[string]bool {
	set := map[string]bool{}
	for _, line := range strings.Split(profanityText, "\n") {
		if w := strings.TrimSpace(line); w != "" && !strings.HasPrefix(w, "#") {
			set[strings.ToLower(w)] = true
		}
	}
	return set
}()

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
