package pipeline

import (
	"math"
	"slices"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

// refFrameHeight: font.numericalSize and stroke widths are pixels of a frame this
// tall (the portrait export); other frames scale them.
const refFrameHeight = 1920

// fontSizes are the named font.size values, in percent of the frame height.
var fontSizes = map[string]float64{"small": 3.5, "medium": 4.5, "large": 6, "xlarge": 7.5}

// captionStyle resolves the burnt-in captions from the brand template's
// preferences, overridden by renderPref; ok is false when captions are off.
func captionStyle(base, rp apitypes.RenderPref) (st media.CaptionStyle, ok bool) {
	if !pick(base.EnableCaption, rp.EnableCaption) {
		return st, false
	}
	st.Uppercase = pick(base.EnableUppercase, rp.EnableUppercase)
	st.HighlightWord = pick(base.EnableHighlight, rp.EnableHighlight)
	st.PopWord = pick(base.EnableCaptionAnimation, rp.EnableCaptionAnimation)
	for _, hc := range []*apitypes.HighlightColor{base.HighlightColor, rp.HighlightColor} {
		if hc != nil && hc.Primary != "" {
			st.Highlight = hc.Primary
		}
	}
	if st.Highlight == "" {
		for _, ca := range []*apitypes.CaptionAnimation{rp.CaptionAnimation, base.CaptionAnimation} {
			if ca != nil && ca.HighlightColor != "" {
				st.Highlight = ca.HighlightColor
				break
			}
		}
	}
	for _, pos := range []string{base.CaptionPosition, rp.CaptionPosition} {
		if pos != "" {
			st.Position = pos
		}
	}
	st.Look, st.BoxColor = captionLook(base, rp)
	st.Bold = true
	for _, f := range []*apitypes.Font{base.Font, rp.Font} {
		if f != nil {
			applyFont(&st, f)
		}
	}
	return st, true
}

// captionLook is the look's name and box colour: renderPref's captionAnimation.name, else its
// captionStyle, else the template's (media.CaptionLook draws an unknown name as classic);
// captionAnimation.bgColor from renderPref, else the template.
func captionLook(base, rp apitypes.RenderPref) (name, box string) {
	for _, p := range []apitypes.RenderPref{rp, base} {
		if ca := p.CaptionAnimation; name == "" && ca != nil && strings.TrimSpace(ca.Name) != "" {
			name = ca.Name
		}
		if name == "" && strings.TrimSpace(p.CaptionStyle) != "" {
			name = p.CaptionStyle
		}
		if ca := p.CaptionAnimation; box == "" && ca != nil && ca.BgColor != "" {
			box = ca.BgColor
		}
	}
	return name, box
}

// maxHookWords: a title longer than this gives way to the clip's strongest key phrase as
// its hook.
const maxHookWords = 8

// hookStyle is the visual hook's look from the template's font and colours (renderPref over
// the template); ok is false when enableVisualHook is off. Each clip's text is set by clipHook.
func hookStyle(base, rp apitypes.RenderPref) (hk *media.Hook, ok bool) {
	if !pick(base.EnableVisualHook, rp.EnableVisualHook) {
		return nil, false
	}
	var st media.CaptionStyle
	for _, f := range []*apitypes.Font{base.Font, rp.Font} {
		if f != nil {
			applyFont(&st, f)
		}
	}
	_, box := captionLook(base, rp)
	return &media.Hook{Font: st.Font, Color: st.Color, BoxColor: box}, true
}

// clipHook is the hook of one clip: its title, or its strongest key phrase when the title
// is long; nil when there is neither.
func clipHook(style *media.Hook, title string, keyPhrases []string) *media.Hook {
	if style == nil {
		return nil
	}
	text := strings.TrimSpace(title)
	if (text == "" || len(strings.Fields(text)) > maxHookWords) && len(keyPhrases) > 0 {
		text = keyPhrases[0]
	}
	if text == "" {
		return nil
	}
	hk := *style
	hk.Text = text
	return &hk
}

// emojiStyle is where the emoji go (renderPref's emojiStyle, else the template's); ok is
// false when enableEmoji is off. capt is the captions' style when they are on, for the place
// beside them. Each clip's words are set by clipEmoji.
func emojiStyle(base, rp apitypes.RenderPref, capt *media.CaptionStyle) (e *media.Emoji, ok bool) {
	if !pick(base.EnableEmoji, rp.EnableEmoji) {
		return nil, false
	}
	e = &media.Emoji{}
	if capt != nil {
		e.CaptionPosition, e.CaptionSizePct = capt.Position, capt.SizePct
	}
	es := rp.EmojiStyle
	if es == nil {
		es = base.EmojiStyle
	}
	if es != nil {
		e.Pos = es.Pos
		if es.ScaleX != nil {
			e.ScaleX = *es.ScaleX
		}
		if es.ScaleY != nil {
			e.ScaleY = *es.ScaleY
		}
		if r := es.Rect; r != nil && r.XPct != nil && r.YPct != nil && r.WPct != nil && r.HPct != nil && *r.WPct > 0 && *r.HPct > 0 {
			e.Rect = &[4]float64{*r.XPct, *r.YPct, *r.WPct, *r.HPct}
		}
	}
	return e, true
}

// clipEmoji is the emoji of one clip: the style with the words of its caption lines.
func clipEmoji(style *media.Emoji, lines []media.CaptionLine) *media.Emoji {
	if style == nil {
		return nil
	}
	e := *style
	e.Words = nil
	for _, l := range lines {
		e.Words = append(e.Words, l.Words...)
	}
	return &e
}

// applyFont sets what font f says on st; what it leaves out stays.
func applyFont(st *media.CaptionStyle, f *apitypes.Font) {
	switch {
	case strings.TrimSpace(f.Family) != "":
		st.Font = strings.TrimSpace(f.Family)
	case f.Name != nil && strings.TrimSpace(*f.Name) != "":
		st.Font = strings.TrimSpace(*f.Name)
	}
	if f.Color != "" {
		st.Color = f.Color
	}
	if pct, ok := fontSizes[strings.ToLower(f.Size)]; ok {
		st.SizePct = pct
	}
	if f.NumericalSize != nil && *f.NumericalSize > 0 {
		st.SizePct = math.Min(20, *f.NumericalSize*100/refFrameHeight)
	}
	if f.Style != nil {
		st.Bold = slices.ContainsFunc(f.Style, func(s string) bool { return strings.EqualFold(s, "bold") })
	}
	if s := f.Stroke; s != nil {
		if s.Color != "" {
			st.Outline = s.Color
		}
		if s.Enabled != nil && !*s.Enabled {
			st.OutlinePct = -1
		}
	}
	if s := f.Shadow; s != nil && s.Enabled != nil {
		st.Shadow = *s.Enabled
	}
}

// pick is over when set, else base, else false.
func pick(base, over *bool) bool {
	if over != nil {
		return *over
	}
	return base != nil && *base
}

// captionLines groups a clip's words (source seconds) into caption lines
// timed from the clip's start and clamped to [0, length], as its .srt shows them.
func captionLines(words []transcribe.Word, offset, length float64) []media.CaptionLine {
	var lines []media.CaptionLine
	clamp := func(t float64) float64 { return math.Min(length, math.Max(0, t-offset)) }
	for _, g := range transcribe.CueGroups(words) {
		l := media.CaptionLine{Start: clamp(g[0].Start), End: clamp(g[len(g)-1].End)}
		if l.End <= l.Start {
			continue
		}
		for _, w := range g {
			l.Words = append(l.Words, media.CaptionWord{Text: w.Text, Start: clamp(w.Start), End: clamp(w.End)})
		}
		lines = append(lines, l)
	}
	return lines
}
