// Package socialcopy writes the post copy of a social copy job: a title, a
// description and hashtags for one clip on one platform. It is a pure
// function of the clip, the platform and the prompt: the same inputs always
// give the same copy. Everything it writes comes from the clip itself (its
// title, transcript text, description, keywords and hashtags), apart from the
// fixed words a tone adds (tone.go); what does not fit the platform's limits
// (limits.go) is cut on a word boundary.
package socialcopy

import (
	"fmt"
	"strings"
	"unicode"
)

// Clip is what the copy is made from: the exportable clip's own fields.
type Clip struct {
	Title       string
	Description string
	Text        string // the transcript; may be empty
	Hashtags    string // "#Tag" words separated by spaces
	Keywords    []string
}

// Copy is the generated post copy.
type Copy struct {
	Title       string
	Description string
	Hashtags    string // "#Tag" words separated by spaces
}

// Generate writes the copy of c for platform (one of apitypes.SocialPlatforms)
// in the tone prompt asks for, if any. Unlike a text model it never adds
// claims about the content: the title is the clip's title (or, without one,
// the first sentence of its text or description), the description is the
// transcript text (or the clip's description without one), and the hashtags
// are the clip's hashtags followed by its keywords as hashtags.
func Generate(c Clip, platform, prompt string) (Copy, error) {
	lim, ok := platformLimits[platform]
	if !ok {
		return Copy{}, fmt.Errorf("no post limits known for platform %q", platform)
	}
	tags := Hashtags(append(strings.Fields(c.Hashtags), c.Keywords...)...)
	title, desc, tags := ToneOf(prompt).apply(headline(c), body(c), tags)
	return lim.fit(title, desc, tags), nil
}

// headline is the clip's title; without one, the first sentence of its text
// or description; without those, its keywords.
func headline(c Clip) string {
	for _, s := range []string{c.Title, firstSentence(clean(c.Text)), firstSentence(clean(c.Description))} {
		if s = clean(s); s != "" {
			return s
		}
	}
	var words []string
	for _, k := range c.Keywords {
		if k = clean(k); k != "" {
			words = append(words, k)
		}
	}
	return strings.Join(words, ", ")
}

// body is the transcript text; without one, the clip's description.
func body(c Clip) string {
	if t := clean(c.Text); t != "" {
		return t
	}
	return clean(c.Description)
}

// clean collapses every run of white space (newlines included) to one space.
func clean(s string) string { return strings.Join(strings.Fields(s), " ") }

// firstSentence is s up to and including the first '.', '!' or '?' that
// ends a sentence (followed by a space or the end); s when there is none.
func firstSentence(s string) string {
	for i, r := range s {
		if isSentenceEnd(r) && (i+1 == len(s) || s[i+1] == ' ') {
			return s[:i+1]
		}
	}
	return s
}

func isSentenceEnd(r rune) bool { return r == '.' || r == '!' || r == '?' }

// Hashtags turns words into distinct hashtags, in order: each through
// Hashtag, the empty ones dropped, and a tag equal to an earlier one but for
// case dropped too.
func Hashtags(words ...string) []string {
	var tags []string
	seen := map[string]bool{}
	for _, w := range words {
		t := Hashtag(w)
		if t != "" && !seen[strings.ToLower(t)] {
			seen[strings.ToLower(t)] = true
			tags = append(tags, t)
		}
	}
	return tags
}

// Hashtag turns "machine learning" into "#MachineLearning" and "#go" into
// "#go": letters and digits only, since platforms end a tag at anything else;
// the words of a phrase are joined with their first letters capitalised.
func Hashtag(s string) string {
	words := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	var b strings.Builder
	for _, w := range words {
		rs := []rune(w)
		if len(words) > 1 {
			rs[0] = unicode.ToUpper(rs[0])
		}
		b.WriteString(string(rs))
	}
	if b.Len() == 0 {
		return ""
	}
	return "#" + b.String()
}
