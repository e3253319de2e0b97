package media

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// Hook is the headline drawn large over the first seconds of a clip (renderPref
// enableVisualHook): the clip's title or its strongest key phrase.
type Hook struct {
	Text     string
	Font     string  // family, resolved like the captions' (fontResolver); "" = DejaVu Sans
	Color    string  // text colour, "#RRGGBB"; default white
	Outline  string  // outline colour; default black
	BoxColor string  // the box behind the headline; default black
	Sec      float64 // how long it shows; 0 = HookSec
}

const (
	// HookSec is how long the hook shows, from the clip's start.
	HookSec = 2.5
	// hookSizePct: the headline's font size in percent of the frame height.
	hookSizePct = 6.5
	// hookTopPct: the headline's top edge sits this far (percent of the frame height) below
	// the top, clear of the captions in the lower part.
	hookTopPct = 14
	// maxHookRunes: a longer title is cut at a word boundary.
	maxHookRunes = 60
	// hookFadeMs: the headline fades in and out over this long.
	hookFadeInMs, hookFadeOutMs = 120, 250
)

// hookASS writes the hook as an ASS document for a frame of size w x h: the headline
// centred at the top on a box, wrapped over lines, fading out at Sec.
func hookASS(hk Hook, w, h int) string {
	font := strings.ReplaceAll(sanitizeASS(hk.Font), ",", " ")
	if strings.TrimSpace(font) == "" {
		font = defaultCaptionFont
	}
	sec := hk.Sec
	if sec <= 0 {
		sec = HookSec
	}
	fs := max(8, int(math.Round(float64(h)*hookSizePct/100)))
	box := "&H20" + strings.TrimPrefix(assColour(hk.BoxColor, "000000"), "&H00")
	var b strings.Builder
	fmt.Fprintf(&b, "[Script Info]\nScriptType: v4.00+\nPlayResX: %d\nPlayResY: %d\nWrapStyle: 0\nScaledBorderAndShadow: yes\n\n", w, h)
	b.WriteString("[V4+ Styles]\nFormat: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, " +
		"Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding\n")
	// BorderStyle 3: an opaque box (OutlineColour) behind each line, Outline its padding, so
	// the headline reads on any picture.
	fmt.Fprintf(&b, "Style: Hook,%s,%d,%s,%s,%s,&H80000000,-1,0,0,0,100,100,0,0,3,%d,0,8,%d,%d,%d,1\n\n",
		font, fs, assColour(hk.Color, "FFFFFF"), assColour(hk.Color, "FFFFFF"), box, max(2, fs/4), w/12, w/12, h*hookTopPct/100)
	b.WriteString("[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n")
	fmt.Fprintf(&b, "Dialogue: 1,%s,%s,Hook,,0,0,0,,{\\fad(%d,%d)}%s\n", assTime(0), assTime(sec), hookFadeInMs, hookFadeOutMs,
		sanitizeASS(HookText(hk.Text)))
	return b.String()
}

// HookText is the headline as drawn: spaces collapsed, cut at a word boundary to at most
// maxHookRunes.
func HookText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= maxHookRunes {
		return s
	}
	cut := string(r[:maxHookRunes])
	if i := strings.LastIndexByte(cut, ' '); i > 0 {
		cut = cut[:i]
	}
	return cut + "…"
}

// hookFilter writes the hook as an ASS file and returns the filter that draws it; "" when
// there is no text.
func hookFilter(hk Hook, size [2]int, tmp string) (string, error) {
	if strings.TrimSpace(hk.Text) == "" {
		return "", nil
	}
	if !hasFilter("ass") {
		return "", errors.New("render: the visual hook needs ffmpeg's ass filter (ffmpeg built with libass)")
	}
	hk.Font = captionFonts.resolve(hk.Font)
	file := filepath.Join(tmp, "hook.ass")
	if err := os.WriteFile(file, []byte(hookASS(hk, size[0], size[1])), 0o600); err != nil {
		return "", fmt.Errorf("render: hook: %w", err)
	}
	return "ass=filename=" + toolexec.FilterValue(file), nil
}
