package socialcopy

import (
	"strings"
	"unicode"
)

// Tone is a style of copy that a job's prompt can ask for. A tone changes
// casing and punctuation, or adds a fixed phrase that says nothing about the
// content; it never adds words about the clip.
type Tone string

// The tones, and what each does:
//
//	Neutral   nothing: the copy as the clip says it
//	Formal    the title in title case; every run of '!' (and '?!') becomes '.' (or '?');
//	          each sentence of the description starts with a capital letter
//	Casual    the title in lower case (words in capitals, like "AI", kept) without a final '.'
//	Excited   the title and the description end with '!' (a final '.' becomes '!'; a '?' stays)
//	Question  the description ends with the fixed question "What do you think?"
//	Concise   the description is cut to its first sentence and the hashtags to the first 3
const (
	Neutral  Tone = ""
	Formal   Tone = "formal"
	Casual   Tone = "casual"
	Excited  Tone = "excited"
	Question Tone = "question"
	Concise  Tone = "concise"
)

// toneWords are the words of a prompt that select a tone, matched as whole
// words in any case.
var toneWords = map[string]Tone{
	"formal": Formal, "professional": Formal, "business": Formal, "corporate": Formal,
	"casual": Casual, "informal": Casual, "friendly": Casual, "relaxed": Casual, "chill": Casual,
	"excited": Excited, "exciting": Excited, "enthusiastic": Excited, "energetic": Excited, "hype": Excited, "hyped": Excited,
	"question": Question, "questions": Question, "curious": Question,
	"concise": Concise, "short": Concise, "brief": Concise, "minimal": Concise,
}

// negations before a tone word cancel it, directly or across fillers only:
// "not formal", "don't be formal" and "not too formal" ask for no tone.
var (
	negations = map[string]bool{"not": true, "no": true, "non": true, "never": true, "without": true, "avoid": true, "dont": true, "less": true}
	fillers   = map[string]bool{"be": true, "too": true, "so": true, "very": true, "overly": true, "sound": true, "a": true, "an": true, "the": true}
)

// questionLine is what the Question tone adds.
const questionLine = "What do you think?"

// ToneOf is the tone prompt asks for: that of its first tone word (see
// toneWords) that no negation cancels; Neutral when it names none, so an
// unknown prompt changes nothing.
func ToneOf(prompt string) Tone {
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(prompt), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\'' && r != '’'
	}) {
		words = append(words, strings.NewReplacer("'", "", "’", "").Replace(w)) // "don't" is "dont"
	}
	for i, w := range words {
		if t, ok := toneWords[w]; ok && !negated(words[:i]) {
			return t
		}
	}
	return Neutral
}

// negated tells whether the words before a tone word end in a negation,
// fillers aside.
func negated(before []string) bool {
	i := len(before) - 1
	for i >= 0 && fillers[before[i]] {
		i--
	}
	return i >= 0 && negations[before[i]]
}

// apply styles a title, a description and hashtags in the tone.
func (t Tone) apply(title, desc string, tags []string) (string, string, []string) {
	switch t {
	case Formal:
		return titleCase(calm(title)), capitalizeSentences(calm(desc)), tags
	case Casual:
		return strings.TrimRight(lowerCase(title), "."), desc, tags
	case Excited:
		return exclaim(title), exclaim(desc), tags
	case Question:
		return title, clean(desc + " " + questionLine), tags
	case Concise:
		return title, firstSentence(desc), tags[:min(len(tags), 3)]
	}
	return title, desc, tags
}

// calm replaces each run of '!' and '?' with '?' when it holds a '?', and
// with '.' when it does not.
func calm(s string) string {
	var b strings.Builder
	run := ""
	flush := func() {
		switch {
		case strings.Contains(run, "?"):
			b.WriteByte('?')
		case run != "":
			b.WriteByte('.')
		}
		run = ""
	}
	for _, r := range s {
		if r == '!' || r == '?' {
			run += string(r)
			continue
		}
		flush()
		b.WriteRune(r)
	}
	flush()
	return b.String()
}

// minorWords stay in lower case inside a title-case title.
var minorWords = map[string]bool{
	"a": true, "an": true, "and": true, "as": true, "at": true, "but": true, "by": true, "for": true,
	"in": true, "nor": true, "of": true, "on": true, "or": true, "the": true, "to": true, "vs": true, "via": true,
}

// titleCase capitalises the first letter of every word but the minor ones
// after the first, leaving the other letters as they are (so "iOS" and "AI"
// keep theirs).
func titleCase(s string) string {
	words := strings.Split(s, " ")
	for i, w := range words {
		if i > 0 && minorWords[strings.ToLower(w)] {
			words[i] = strings.ToLower(w)
			continue
		}
		words[i] = upperFirst(w)
	}
	return strings.Join(words, " ")
}

// lowerCase lowers every word except those written in capitals (two letters
// or more, all upper case), which are usually acronyms.
func lowerCase(s string) string {
	words := strings.Split(s, " ")
	for i, w := range words {
		if !isAcronym(w) {
			words[i] = strings.ToLower(w)
		}
	}
	return strings.Join(words, " ")
}

func isAcronym(w string) bool {
	letters := 0
	for _, r := range w {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 2
}

// upperFirst capitalises the first letter of s (skipping leading quotes and
// brackets).
func upperFirst(s string) string {
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return s[:i] + string(unicode.ToUpper(r)) + s[i+len(string(r)):]
		}
	}
	return s
}

// capitalizeSentences capitalises the first letter of s and of every
// sentence after a '.', '!' or '?' and a space.
func capitalizeSentences(s string) string {
	parts := strings.SplitAfter(s, " ")
	start := true
	for i, p := range parts {
		if start {
			parts[i] = upperFirst(p)
		}
		word := strings.TrimRight(p, " ")
		start = word != "" && isSentenceEnd(rune(word[len(word)-1]))
	}
	return strings.Join(parts, "")
}

// exclaim ends s with '!': a final '.' becomes one, a final '?' or '!' is kept.
func exclaim(s string) string {
	if s == "" || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "!") {
		return s
	}
	return strings.TrimRight(s, ".") + "!"
}
