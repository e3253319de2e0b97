package censorjobs

import (
	"context"
	"slices"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

// Pronunciations are listed words' pronunciations besides the dictionary's
// that the checking decode (Hear) hears them by: festival, the speech the
// thresholds are tuned on, says "shit" as "sheet" and "asshole" with a
// reduced first vowel.
var Pronunciations = []transcribe.Pronunciation{
	{Word: "shit", Phones: "SH IY T"},
	{Word: "asshole", Phones: "AH S HH OW L"},
}

// Heard is what Hear found in a clip's audio.
type Heard struct {
	// Candidates are the keyword-spotting hits at the list's lax
	// thresholds (stage 1).
	Candidates []transcribe.Word
	// Among are the words of the checking decode (stage 2): the audio
	// recognised as any sequence of the profanity list's words and the
	// transcript's, none preferred.
	Among []transcribe.Word
	// Kept are the listed words Among has over a candidate, timed as
	// Among has them: the words censored.
	Kept []transcribe.Word
}

// Hear finds the words of the profanity list in a clip's audio, wav (16
// kHz mono), in two stages. Keyword spotting at thresholds lax enough to
// find the short words in festival speech finds candidates, with about one
// false alarm a second on clean speech. Then the whole audio is decoded
// with a grammar of the listed words and vocabulary (the transcript's words
// of the clip) with no language model: where the recogniser's language
// model preferred likelier words ("but she did" for "oh shit"), the sound
// alone decides. A candidate is kept where that decode has a listed word
// over it; elsewhere the transcript's own word fitted the sound better.
func Hear(ctx context.Context, s Spotter, wav string, vocabulary []string) (*Heard, error) {
	h := &Heard{}
	var err error
	if h.Candidates, err = s.Spot(ctx, wav, keyphrases); err != nil {
		return nil, err
	}
	if len(h.Candidates) == 0 {
		return h, nil // nothing to check
	}
	words := make([]string, 0, len(keyphrases)+len(vocabulary))
	for _, k := range keyphrases {
		words = append(words, k.Phrase)
	}
	words = append(words, vocabulary...)
	if h.Among, err = s.DecodeAmong(ctx, wav, words, Pronunciations); err != nil {
		return nil, err
	}
	for _, a := range h.Among {
		if !Profane(a.Text) {
			continue
		}
		if slices.ContainsFunc(h.Candidates, func(c transcribe.Word) bool {
			return min(c.End, a.End) > max(c.Start, a.Start)
		}) {
			h.Kept = append(h.Kept, a)
		}
	}
	return h, nil
}

// Vocabulary are the distinct lower-cased words of a transcript spoken
// within [startMs-1 s, endMs+1 s) of the source: those around a clip, which
// Hear's checking decode weighs the listed words against.
func Vocabulary(words []store.TranscriptWord, startMs, endMs int64) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range words {
		if w.EndMs <= startMs-1000 || w.StartMs >= endMs+1000 {
			continue
		}
		t := strings.ToLower(w.Word)
		if i := strings.IndexByte(t, '('); i > 0 {
			t = t[:i]
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
