package media

import (
	"math"
	"strings"
)

// The caption looks (CaptionStyle.Look): how the lines are laid out and animated. Every look
// keeps an outline (or a box) so the words read on light, dark and busy pictures.
const (
	LookClassic = "classic"  // two-line classic: outline and shadow, a long cue split over two lines
	LookBox     = "box"      // each line on a box in BoxColor
	LookKaraoke = "karaoke"  // word-by-word fill: each word turns to the highlight colour as it is spoken
	LookPop     = "pop"      // the spoken word scales up and is highlighted
	LookOneWord = "one-word" // one word at a time, larger, in the middle band of the frame
)

// captionLooks maps the documented captionStyle / captionAnimation.name values, the preset
// templates' style names among them, to a look. Names compare lower-cased, with '_' and ' '
// as '-'.
var captionLooks = map[string]string{
	"classic": LookClassic, "two-line": LookClassic, "simple": LookClassic, "deep-diver": LookClassic, "think-media": LookClassic,
	"box": LookBox, "boxed": LookBox, "gameplay": LookBox, "pod-p": LookBox,
	"karaoke": LookKaraoke, "youshaei": LookKaraoke,
	"pop": LookPop, "popline": LookPop, "beasty": LookPop,
	"one-word": LookOneWord, "word": LookOneWord, "mozi": LookOneWord,
}

// CaptionLook names the look of a style or animation name; known is false for an empty or
// unknown name (which is drawn as LookClassic).
func CaptionLook(name string) (look string, known bool) {
	key := strings.NewReplacer("_", "-", " ", "-").Replace(strings.ToLower(strings.TrimSpace(name)))
	look, known = captionLooks[key]
	if !known {
		return LookClassic, false
	}
	return look, true
}

// CaptionLookNames lists the accepted names of each look, for the guide and the tests.
func CaptionLookNames() map[string][]string {
	out := map[string][]string{}
	for name, look := range captionLooks {
		out[look] = append(out[look], name)
	}
	return out
}

const (
	// oneWordScale: the one-word look's words are this much larger than the style's size.
	oneWordScale = 1.2
	// twoLineMin: a classic cue of at least this many words is split over two lines.
	twoLineMin = 5
	// defaultBoxColour: the box look's box when BoxColor is unset: black, a little see-through.
	defaultBoxColour = "000000"
	boxAlpha         = "30"
)

// lookEvents writes the Dialogue events of one caption line in the style's look.
func lookEvents(b *strings.Builder, l CaptionLine, words []string, st CaptionStyle, primary, highlight string) {
	if len(words) == 0 {
		return
	}
	look, _ := CaptionLook(st.Look)
	switch {
	case look == LookOneWord:
		for i := range words {
			from, to := wordSpan(l, i)
			dialogue(b, from, to, words[i])
		}
		return
	case look == LookKaraoke:
		// Each word turns to the highlight colour as it starts and stays so: one event per
		// word, the words spoken so far coloured. (A \kf sweep leaves a word half coloured
		// for most of its time, which tesseract misreads on a busy picture.)
		for i := range words {
			from, to := wordSpan(l, i)
			if i == 0 {
				from = l.Start
			}
			parts := append([]string(nil), words...)
			parts[0] = `{\1c` + highlight + `}` + parts[0]
			parts[i] += `{\1c` + primary + `}`
			dialogue(b, from, to, strings.Join(parts, " "))
		}
		return
	case st.HighlightWord || st.PopWord || look == LookPop:
		if look == LookPop {
			st.PopWord, st.HighlightWord = true, true
		}
		for i := range words {
			from, to := wordSpan(l, i)
			if i == 0 {
				from = l.Start
			}
			parts := append([]string(nil), words...)
			parts[i] = spokenWord(words[i], st, primary, highlight)
			dialogue(b, from, to, joinLines(parts, look))
		}
		return
	}
	dialogue(b, l.Start, l.End, joinLines(words, look))
}

// wordSpan is when word i of l is shown on its own: from its start to the next word's start
// (the last to the line's end).
func wordSpan(l CaptionLine, i int) (float64, float64) {
	from, to := l.Words[i].Start, l.End
	if i+1 < len(l.Words) {
		to = l.Words[i+1].Start
	}
	return math.Max(from, l.Start), math.Min(to, l.End)
}

// joinLines joins the words with spaces; the classic look breaks a long cue into two lines
// (a hard break after the middle word) so it never spreads over three.
func joinLines(words []string, look string) string {
	if look != LookClassic || len(words) < twoLineMin {
		return strings.Join(words, " ")
	}
	half := (len(words) + 1) / 2
	return strings.Join(words[:half], " ") + `\N` + strings.Join(words[half:], " ")
}
