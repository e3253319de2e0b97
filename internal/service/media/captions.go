package media

import (
	"fmt"
	"math"
	"strings"
	"unicode"
)

// CaptionWord is one spoken word of a caption, timed in seconds from the clip's start.
type CaptionWord struct {
	Text       string
	Start, End float64
}

// CaptionLine is one caption: a few words shown together from Start to End.
type CaptionLine struct {
	Start, End float64
	Words      []CaptionWord
}

// CaptionStyle is how burnt-in captions look. Colours are "#RRGGBB" (or "RRGGBB"); an empty or
// unreadable one takes the default.
type CaptionStyle struct {
	Font      string  // font family as libass gets it (see fontResolver); "" = DejaVu Sans
	SizePct   float64 // font size as a percentage of the frame height; 0 = 4.5
	Color     string  // text colour; default white
	Highlight string  // colour of the word being spoken, when HighlightWord; default yellow
	Outline   string  // outline colour; default black
	// OutlinePct is the outline width as a percentage of the font size; 0 = 8, negative = none.
	OutlinePct    float64
	Shadow        bool // a soft drop shadow under the text
	Bold          bool
	Uppercase     bool
	HighlightWord bool // colour the word being spoken in Highlight
	// PopWord draws the word being spoken larger as it starts, settling to its size over
	// popSec (the animated presets); with HighlightWord it is coloured too.
	PopWord bool
	// Position is where the lines sit: "top", "middle" (or "center"), else the bottom.
	Position string
	// Look is a caption style or animation name (CaptionLook); "" or unknown is LookClassic.
	Look string
	// BoxColor is the box behind the lines of LookBox; default black.
	BoxColor string
	// Legacy draws the captions as they were before issue 26's readability work; the
	// benchmark renders it beside the current drawing as its baseline.
	Legacy bool
}

// Captions are burnt into a render: the lines in the style given.
type Captions struct {
	Lines []CaptionLine
	Style CaptionStyle
}

const (
	defaultCaptionFont    = "DejaVu Sans"
	defaultCaptionSizePct = 4.5
	defaultOutlinePct     = 8
	// backdropColour: the band behind the words of every look but LookBox, black 87% opaque.
	backdropColour = "&H20000000"
	// captionMarginPct: the captions' baseline sits this far (percent of the frame height)
	// above the bottom edge, in the lower part of the frame clear of the watermark.
	captionMarginPct = 15
)

// captionAlignment is the ASS alignment (numpad layout, centred) and vertical margin
// (percent of the frame height) of a CaptionStyle.Position.
func captionAlignment(position string) (alignment, marginPct int) {
	switch strings.ToLower(strings.TrimSpace(position)) {
	case "top":
		return 8, 10
	case "middle", "center", "centre":
		return 5, 0
	}
	return 2, captionMarginPct
}

// ASS writes captions as an Advanced SubStation Alpha document for a frame of size w x h:
// centred lines at the style's position, sized relative to the frame. With HighlightWord each line becomes one
// event per word, the word being spoken drawn in the highlight colour.
func ASS(c Captions, w, h int) string {
	st := c.Style
	font := strings.ReplaceAll(sanitizeASS(st.Font), ",", " ")
	if strings.TrimSpace(font) == "" {
		font = defaultCaptionFont
	}
	size := st.SizePct
	if size <= 0 {
		size = defaultCaptionSizePct
	}
	look, _ := CaptionLook(st.Look)
	if look == LookOneWord {
		size *= oneWordScale
	}
	fs := max(8, int(math.Round(float64(h)*size/100)))
	outlinePct := st.OutlinePct
	if outlinePct == 0 {
		outlinePct = defaultOutlinePct
	}
	outline := math.Max(0, math.Round(float64(fs)*outlinePct)/100)
	shadow := 0.0
	if st.Shadow {
		shadow = math.Max(1, math.Round(float64(fs)/16))
	}
	bold := 0
	if st.Bold {
		bold = -1
	}
	primary := assColour(st.Color, "FFFFFF")
	highlight := assColour(st.Highlight, "FFE000")
	outc := assColour(st.Outline, "000000")
	// BorderStyle 4 (libass): the outlined words over a translucent dark band (BackColour),
	// which keeps white words readable on a white or busy picture.
	border, back := 4, backdropColour
	boxed := look == LookBox || look == LookOneWord
	if boxed {
		// A lone word over a translucent band does not read on white (tesseract reads
		// nothing there): one word at a time is drawn on the box too.
		// BorderStyle 3: an opaque box in OutlineColour, Outline its padding, behind each line.
		border, outline, shadow = 3, math.Max(2, math.Round(float64(fs)*0.25)), 0
		outc = "&H" + boxAlpha + strings.TrimPrefix(assColour(st.BoxColor, defaultBoxColour), "&H00")
	}
	if !st.Legacy {
		cc := contrastColours(st, boxed)
		primary, highlight, back = cc.primary, cc.highlight, cc.back
		if boxed {
			outc = cc.outline
		} else if st.OutlinePct >= 0 {
			outc = cc.outline
		}
	}
	// The one-word look's line: its words at this size, between the margins and
	// inside the box's padding.
	margin := w / 20 // left and right
	ow := oneWordLine{fontSize: fs, room: float64(w-2*margin) - 2*outline}
	var b strings.Builder
	fmt.Fprintf(&b, "[Script Info]\nScriptType: v4.00+\nPlayResX: %d\nPlayResY: %d\nWrapStyle: 0\nScaledBorderAndShadow: yes\n\n", w, h)
	b.WriteString("[V4+ Styles]\nFormat: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, " +
		"Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding\n")
	align, marginPct := captionAlignment(st.Position)
	fmt.Fprintf(&b, "Style: Caption,%s,%d,%s,%s,%s,%s,%d,0,0,0,100,100,0,0,%d,%g,%g,%d,%d,%d,%d,1\n\n",
		font, fs, primary, highlight, outc, back, bold, border, outline, shadow, align, margin, margin, h*marginPct/100)
	b.WriteString("[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n")
	lines := c.Lines
	if !st.Legacy {
		lines = heldLines(lines)
	}
	for _, l := range lines {
		words := make([]string, len(l.Words))
		for i, wd := range l.Words {
			words[i] = sanitizeASS(wd.Text)
			if st.Uppercase {
				words[i] = strings.ToUpper(words[i])
			}
		}
		lookEvents(&b, l, words, st, primary, highlight, ow)
	}
	return b.String()
}

const (
	// holdGapSec: a caption stays on screen through a pause shorter than this, until the
	// next one appears. Subtitling closes short gaps so lines do not flash off and on; a
	// speaker's pause between phrases (the cue splits at 0.5 s) would otherwise leave the
	// picture without words for a fifth of a clip's time.
	holdGapSec = 1.2
	// minLineSec: a caption is on screen at least this long when the next one allows: long
	// enough to be read (subtitling's minimum is about 5/6 s).
	minLineSec = 0.8
)

// heldLines returns the lines, each ending at the next one's start when the pause between
// them is under holdGapSec, and lasting at least minLineSec (never into the next line).
func heldLines(lines []CaptionLine) []CaptionLine {
	out := append([]CaptionLine(nil), lines...)
	for i := range out {
		end := max(out[i].End, out[i].Start+minLineSec)
		if i+1 < len(out) {
			next := out[i+1].Start
			if next-out[i].End < holdGapSec {
				end = next
			}
			end = min(end, next)
		}
		out[i].End = max(out[i].End, end)
	}
	return out
}

func dialogue(b *strings.Builder, start, end float64, text string) {
	if end <= start || text == "" {
		return
	}
	fmt.Fprintf(b, "Dialogue: 0,%s,%s,Caption,,0,0,0,,%s\n", assTime(start), assTime(end), text)
}

// assTime formats seconds as H:MM:SS.cc, rounded to the centisecond.
func assTime(sec float64) string {
	cs := int64(math.Round(math.Max(0, sec) * 100))
	return fmt.Sprintf("%d:%02d:%02d.%02d", cs/360000, cs/6000%60, cs/100%60, cs%100)
}

// assColour turns "#RRGGBB" into ASS's "&H00BBGGRR"; anything else gives def (RRGGBB).
func assColour(c, def string) string {
	c = strings.TrimPrefix(strings.TrimSpace(c), "#")
	if len(c) != 6 || strings.IndexFunc(c, func(r rune) bool { return !unicode.Is(unicode.ASCII_Hex_Digit, r) }) >= 0 {
		c = def
	}
	c = strings.ToUpper(c)
	return "&H00" + c[4:6] + c[2:4] + c[0:2] + "&"
}

// sanitizeASS drops what ASS would read as markup or an end of line: braces, backslashes and
// line breaks.
// popScale and popSec: an animated caption's spoken word starts at popScale percent of
// its size and settles to 100 over popSec.
const (
	popScale = 125
	popSec   = 0.12
)

// spokenWord is the override-tagged text of the word being spoken: coloured when
// HighlightWord, popping when PopWord; the tags are reset after it.
func spokenWord(word string, st CaptionStyle, primary, highlight string) string {
	var on, off string
	if st.HighlightWord {
		on, off = `\1c`+highlight, `\1c`+primary
	}
	if st.PopWord {
		on += fmt.Sprintf(`\fscx%d\fscy%d\t(0,%d,\fscx100\fscy100)`, popScale, popScale, int(popSec*1000))
		off += `\fscx100\fscy100`
	}
	return "{" + on + "}" + word + "{" + off + "}"
}

func sanitizeASS(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '{', '}', '\\', '\n', '\r':
			return -1
		}
		return r
	}, s)
}
