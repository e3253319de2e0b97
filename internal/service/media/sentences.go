package media

import (
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Curation from a transcript (CurateOptions.Words).
const (
	// sentencePause: a gap between two words this long or longer ends a sentence; so does any
	// gap whose middle lies in a pause the analysis detected.
	sentencePause = 0.5
	// sentenceLead / sentenceTail: how much of the pause before a clip's first word and after
	// its last word the clip keeps (at most half the gap to the neighbouring word).
	sentenceLead = 0.15
	sentenceTail = 0.2
	// coverageCap: the clips of a transcript cover at most this share of the range (the best
	// clip is always kept, even when it alone is longer).
	coverageCap = 0.6
	// keywordWeight is added to a clip's score for each spoken word matching a keyword, up to
	// maxKeywordBonus.
	keywordWeight   = 0.2
	maxKeywordBonus = 1.0
	// minKeywordLetters: shorter keyword words are ignored.
	minKeywordLetters = 3
)

// sentence is a run of words between two pauses; start and end are the clip boundaries it
// gives (padded into the pauses), hits the words matching a keyword.
type sentence struct {
	start, end float64
	hits       int
}

// sentences groups the words inside [rs, re] into sentences.
func sentences(words []Word, silences []Interval, rs, re float64, terms map[string]bool) []sentence {
	var in []Word
	for _, w := range words {
		if w.Start >= rs && w.End <= re && w.Start <= w.End {
			in = append(in, w)
		}
	}
	slices.SortStableFunc(in, func(x, y Word) int { return cmpFloat(x.Start, y.Start) })
	var out []sentence
	for i, w := range in {
		if i == 0 || sentenceBreak(in[i-1].End, w.Start, silences) {
			before := w.Start - rs
			if i > 0 {
				before = (w.Start - in[i-1].End) / 2
			}
			out = append(out, sentence{start: w.Start - max(0, min(sentenceLead, before))})
		}
		s := &out[len(out)-1]
		after := re - w.End
		if i+1 < len(in) {
			after = (in[i+1].Start - w.End) / 2
		}
		s.end = w.End + max(0, min(sentenceTail, after))
		if terms[stem(w.Text)] {
			s.hits++
		}
	}
	return out
}

// sentenceBreak reports whether the gap from the end of one word to the start of the next
// ends a sentence.
func sentenceBreak(prevEnd, nextStart float64, silences []Interval) bool {
	if nextStart-prevEnd >= sentencePause {
		return true
	}
	if nextStart <= prevEnd {
		return false
	}
	mid := (prevEnd + nextStart) / 2
	k := sort.Search(len(silences), func(i int) bool { return silences[i].End >= mid })
	return k < len(silences) && silences[k].Start <= mid
}

// keywordTerms turns keywords into the stems clips are matched against.
func keywordTerms(keywords []string) map[string]bool {
	terms := map[string]bool{}
	for _, k := range keywords {
		for _, w := range strings.FieldsFunc(k, notWordRune) {
			if len([]rune(w)) >= minKeywordLetters {
				terms[stem(w)] = true
			}
		}
	}
	return terms
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// stem lowercases a word, trims what is not a letter or digit, and strips one ending (-ies
// becomes -y; else -ing, -ed, -es or -s) when 3 letters remain, then a final -e when more
// than 3 remain: "rockets", "rocket" → "rocket"; "cooking", "cooked" → "cook".
func stem(w string) string {
	w = strings.ToLower(strings.TrimFunc(w, notWordRune))
	if strings.HasSuffix(w, "ies") && len(w) >= 6 {
		return w[:len(w)-3] + "y"
	}
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			w = w[:len(w)-len(suf)]
			break
		}
	}
	if strings.HasSuffix(w, "e") && len(w) > 3 {
		w = w[:len(w)-1]
	}
	return w
}

// candidate is a possible clip from a transcript; onTopic: its first and last sentences each
// say a keyword.
type candidate struct {
	Highlight
	onTopic bool
}

// sentenceCandidates is every run of whole sentences whose length is allowed.
func sentenceCandidates(ss []sentence, durations [][2]float64, sc *scorer) []candidate {
	_, hi := lengthBounds(durations)
	var out []candidate
	for i := range ss {
		hits := 0
		for j := i; j < len(ss); j++ {
			hits += ss[j].hits
			l := ss[j].end - ss[i].start
			if l > hi+1e-9 {
				break
			}
			fit := lengthFit(durations, l)
			if fit < 0 || l < minUsefulClip {
				continue
			}
			h := sc.highlight(ss[i].start, ss[j].end, fit)
			h.Score += min(maxKeywordBonus, keywordWeight*float64(hits))
			out = append(out, candidate{h, ss[i].hits > 0 && ss[j].hits > 0})
		}
	}
	return out
}

// pickSentences chooses from the candidates: with keywords, only the candidates on topic when
// there are any; the best first, skipping overlaps and those that would take the
// clips past coverageCap of the range (the first is always taken), at most maxClips.
func pickSentences(cands []candidate, keywords bool, rangeLen float64) []Highlight {
	if keywords && slices.ContainsFunc(cands, func(c candidate) bool { return c.onTopic }) {
		cands = slices.DeleteFunc(cands, func(c candidate) bool { return !c.onTopic })
	}
	slices.SortStableFunc(cands, func(x, y candidate) int {
		if c := cmpFloat(y.Score, x.Score); c != 0 {
			return c
		}
		if c := cmpFloat(x.Start, y.Start); c != 0 {
			return c
		}
		return cmpFloat(x.End, y.End)
	})
	budget := coverageCap * rangeLen
	covered := 0.0
	var picked []Highlight
	for _, c := range cands {
		if len(picked) == maxClips {
			break
		}
		l := c.End - c.Start
		if len(picked) > 0 && covered+l > budget+1e-9 || overlapsAny(picked, c.Highlight) {
			continue
		}
		picked = append(picked, c.Highlight)
		covered += l
	}
	return picked
}

// transcriptHighlights picks clips from the words, or returns nil when no run of sentences
// has an allowed length.
func transcriptHighlights(a *Analysis, opts CurateOptions, rs, re float64, durations [][2]float64, sc *scorer) []Highlight {
	terms := keywordTerms(opts.Keywords)
	ss := sentences(opts.Words, a.Silences, rs, re, terms)
	cands := sentenceCandidates(ss, durations, sc)
	if len(cands) == 0 {
		return nil
	}
	picked := pickSentences(cands, len(terms) > 0, re-rs)
	slices.SortFunc(picked, func(x, y Highlight) int { return cmpFloat(x.Start, y.Start) })
	return picked
}
