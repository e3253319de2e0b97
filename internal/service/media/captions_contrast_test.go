package media

import (
	"strings"
	"testing"
)

// Every channel of the words ends on the side opposite the backing, the hue kept: a colour
// OCR binarises per channel is never half on the band's side.
func TestReadableOn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		c     rgb
		light bool
	}{
		{"yellow on dark", rgb{255, 224, 0}, false},
		{"red on dark", rgb{255, 0, 0}, false},
		{"white on dark", rgb{255, 255, 255}, false},
		{"navy on light", rgb{20, 20, 160}, true},
		{"yellow on light", rgb{255, 224, 0}, true},
	} {
		got := readableOn(tc.c, tc.light)
		for i, v := range got {
			if !tc.light && v < ocrFloor-0.5 || tc.light && v > 255-ocrFloor+0.5 {
				t.Errorf("%s: %v gives %v: channel %d on the backing's side", tc.name, tc.c, got, i)
			}
		}
		// The hue: the order of the channels is kept.
		for i := range 3 {
			for j := range 3 {
				if tc.c[i] > tc.c[j] && got[i] < got[j] {
					t.Errorf("%s: %v gives %v: the hue changed", tc.name, tc.c, got)
				}
			}
		}
	}
	if got := readableOn(rgb{255, 255, 255}, false); got != (rgb{255, 255, 255}) {
		t.Errorf("white on a dark band changed to %v", got)
	}
}

// The band goes dark behind light words and light behind dark ones; a box keeps its colour
// and the words take the side opposite it.
func TestContrastColours(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		st      CaptionStyle
		boxed   bool
		primary string
		back    string
	}{
		{"default", CaptionStyle{}, false, "&H00FFFFFF&", darkBand},
		{"yellow words", CaptionStyle{Color: "#FFE000"}, false, "&H00A0F3FF&", darkBand},
		{"navy words", CaptionStyle{Color: "#101060"}, false, "&H005F1010&", lightBand},
		{"white words on a light box", CaptionStyle{BoxColor: "#F0F0F0"}, true, "&H005F5F5F&", darkBand},
		{"white words on a red box", CaptionStyle{BoxColor: "#C01010"}, true, "&H00FFFFFF&", darkBand},
	} {
		cc := contrastColours(tc.st, tc.boxed)
		if cc.primary != tc.primary || !tc.boxed && cc.back != tc.back {
			t.Errorf("%s: words %s on %s, want %s on %s", tc.name, cc.primary, cc.back, tc.primary, tc.back)
		}
	}
	if cc := contrastColours(CaptionStyle{BoxColor: "#F0F0F0"}, true); !strings.HasSuffix(cc.outline, "F0F0F0&") {
		t.Errorf("the light box is drawn %s, want the style's #F0F0F0", cc.outline)
	}
}

// A caption stays up through a short pause, until the next; one shown too briefly to read is
// lengthened; a long pause and the legacy drawing leave the screen empty.
func TestHeldLines(t *testing.T) {
	t.Parallel()
	lines := []CaptionLine{{Start: 0, End: 1}, {Start: 1.5, End: 1.7}, {Start: 2, End: 3}, {Start: 5, End: 5.3}}
	got := heldLines(lines)
	want := []float64{1.5, 2, 3, 5.8}
	for i, l := range got {
		if diff := l.End - want[i]; diff > 1e-9 || diff < -1e-9 {
			t.Errorf("line %d ends at %g, want %g", i, l.End, want[i])
		}
	}
	if lines[0].End != 1 {
		t.Error("heldLines changed its argument")
	}
	for i := range lines {
		lines[i].Words = []CaptionWord{{"word", lines[i].Start, lines[i].End}}
	}
	doc := ASS(Captions{Lines: lines, Style: CaptionStyle{Legacy: true}}, 1080, 1920)
	if !strings.Contains(doc, "Dialogue: 0,0:00:00.00,0:00:01.00,") {
		t.Errorf("legacy drawing held a line:\n%s", doc)
	}
}
