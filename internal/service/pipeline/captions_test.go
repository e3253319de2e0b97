package pipeline

import (
	"reflect"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

func TestCaptionStyle(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	name, size, width := "Liberation Sans", 96.0, 4.0
	tpl := apitypes.RenderPref{
		EnableCaption: &yes, EnableUppercase: &yes,
		HighlightColor: &apitypes.HighlightColor{Primary: "#00FF00"},
		Font:           &apitypes.Font{Family: "DejaVu Serif", Color: "#FFFF00", Size: "large"},
	}
	cases := []struct {
		name     string
		base, rp apitypes.RenderPref
		on       bool
		want     media.CaptionStyle
	}{
		{"off by default", apitypes.RenderPref{}, apitypes.RenderPref{}, false, media.CaptionStyle{}},
		{"on, defaults", apitypes.RenderPref{}, apitypes.RenderPref{EnableCaption: &yes}, true, media.CaptionStyle{Bold: true}},
		{"template", tpl, apitypes.RenderPref{}, true,
			media.CaptionStyle{Font: "DejaVu Serif", Color: "#FFFF00", SizePct: 6, Highlight: "#00FF00", Bold: true, Uppercase: true}},
		{"renderPref turns the template's captions off", tpl, apitypes.RenderPref{EnableCaption: &no}, false, media.CaptionStyle{}},
		{"renderPref overrides", tpl, apitypes.RenderPref{
			EnableUppercase: &no, EnableHighlight: &yes,
			CaptionAnimation: &apitypes.CaptionAnimation{HighlightColor: "#0000FF"},
			Font: &apitypes.Font{Name: &name, NumericalSize: &size, Style: []string{"italic"},
				Stroke: &apitypes.FontStroke{Enabled: &no, Color: "#111111", Width: &width}, Shadow: &apitypes.FontShadow{Enabled: &yes}},
		}, true, media.CaptionStyle{Font: "Liberation Sans", Color: "#FFFF00", SizePct: 5, Highlight: "#00FF00", Outline: "#111111",
			OutlinePct: -1, Shadow: true, HighlightWord: true}},
		{"animation colour without a highlight colour", apitypes.RenderPref{EnableCaption: &yes, EnableHighlight: &yes,
			CaptionAnimation: &apitypes.CaptionAnimation{HighlightColor: "#0000FF"}}, apitypes.RenderPref{}, true,
			media.CaptionStyle{Highlight: "#0000FF", Bold: true, HighlightWord: true}},
		{"caption animation pops the spoken word", apitypes.RenderPref{EnableCaption: &yes, EnableCaptionAnimation: &yes},
			apitypes.RenderPref{}, true, media.CaptionStyle{Bold: true, PopWord: true}},
		{"renderPref's animation name over the template's style, the template's box colour", apitypes.RenderPref{EnableCaption: &yes,
			CaptionStyle: "karaoke", CaptionAnimation: &apitypes.CaptionAnimation{BgColor: "#112233"}},
			apitypes.RenderPref{CaptionStyle: "pop", CaptionAnimation: &apitypes.CaptionAnimation{Name: "box"}}, true,
			media.CaptionStyle{Bold: true, Look: "box", BoxColor: "#112233"}},
		{"renderPref's style over the template's animation", apitypes.RenderPref{EnableCaption: &yes,
			CaptionAnimation: &apitypes.CaptionAnimation{Name: "karaoke"}}, apitypes.RenderPref{CaptionStyle: "one-word"}, true,
			media.CaptionStyle{Bold: true, Look: "one-word"}},
	}
	for _, c := range cases {
		got, on := captionStyle(c.base, c.rp)
		if on != c.on || got != c.want {
			t.Errorf("%s: %+v %v, want %+v %v", c.name, got, on, c.want, c.on)
		}
	}
}

func TestCaptionLines(t *testing.T) {
	t.Parallel()
	words := []transcribe.Word{
		{Text: "cut", Start: 9.8, End: 10.2}, {Text: "in", Start: 10.3, End: 10.5},
		{Text: "after", Start: 11.5, End: 11.9}, {Text: "pause", Start: 12, End: 12.6},
	}
	got := captionLines(words, 10, 2.4)
	want := []media.CaptionLine{
		{Start: 0, End: 0.5, Words: []media.CaptionWord{{Text: "cut", Start: 0, End: 0.2}, {Text: "in", Start: 0.3, End: 0.5}}},
		{Start: 1.5, End: 2.4, Words: []media.CaptionWord{{Text: "after", Start: 1.5, End: 1.9}, {Text: "pause", Start: 2, End: 2.4}}},
	}
	if len(got) != len(want) {
		t.Fatalf("lines %+v, want %+v", got, want)
	}
	for i := range got {
		if !approxLine(got[i], want[i]) {
			t.Errorf("line %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if l := captionLines(nil, 0, 5); l != nil {
		t.Errorf("no words: %+v", l)
	}
}

func approxLine(a, b media.CaptionLine) bool {
	r := func(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }
	a.Start, a.End, b.Start, b.End = r(a.Start), r(a.End), r(b.Start), r(b.End)
	for i := range a.Words {
		a.Words[i].Start, a.Words[i].End = r(a.Words[i].Start), r(a.Words[i].End)
	}
	for i := range b.Words {
		b.Words[i].Start, b.Words[i].End = r(b.Words[i].Start), r(b.Words[i].End)
	}
	return reflect.DeepEqual(a, b)
}

func TestClipHook(t *testing.T) {
	t.Parallel()
	yes := true
	if hk, on := hookStyle(apitypes.RenderPref{}, apitypes.RenderPref{}); on || hk != nil {
		t.Errorf("hook off by default: %+v %v", hk, on)
	}
	style, on := hookStyle(apitypes.RenderPref{EnableVisualHook: &yes, Font: &apitypes.Font{Family: "Lato", Color: "#FF0000"},
		CaptionAnimation: &apitypes.CaptionAnimation{BgColor: "#000080"}}, apitypes.RenderPref{})
	if !on || *style != (media.Hook{Font: "Lato", Color: "#FF0000", BoxColor: "#000080"}) {
		t.Fatalf("template hook style %+v %v", style, on)
	}
	for _, c := range []struct {
		title   string
		phrases []string
		want    string
	}{
		{"Seven garden secrets.", []string{"garden"}, "Seven garden secrets."},
		{"so this is the one thing that I think everybody gets wrong about it", []string{"garden water", "x"}, "garden water"},
		{"", nil, ""},
	} {
		hk := clipHook(style, c.title, c.phrases)
		got := ""
		if hk != nil {
			got = hk.Text
		}
		if got != c.want || (hk != nil && hk.Font != "Lato") {
			t.Errorf("clipHook(%q, %v) = %+v, want text %q", c.title, c.phrases, hk, c.want)
		}
	}
}

func TestEmojiStyle(t *testing.T) {
	t.Parallel()
	yes := true
	if e, on := emojiStyle(apitypes.RenderPref{}, apitypes.RenderPref{}, nil); on || e != nil {
		t.Errorf("emoji off by default: %+v", e)
	}
	x, y, w, h, sx := 10.0, 20.0, 30.0, 15.0, 1.5
	capt := &media.CaptionStyle{Position: "top", SizePct: 6}
	e, on := emojiStyle(apitypes.RenderPref{EnableEmoji: &yes, EmojiStyle: &apitypes.EmojiStyle{Pos: "bottom"}},
		apitypes.RenderPref{EmojiStyle: &apitypes.EmojiStyle{ScaleX: &sx, Rect: &apitypes.Rect{XPct: &x, YPct: &y, WPct: &w, HPct: &h}}}, capt)
	if !on || e.Pos != "" || e.ScaleX != 1.5 || e.Rect == nil || *e.Rect != [4]float64{10, 20, 30, 15} || e.CaptionPosition != "top" || e.CaptionSizePct != 6 {
		t.Errorf("emoji style %+v", e)
	}
	lines := []media.CaptionLine{{Words: []media.CaptionWord{{Text: "a"}}}, {Words: []media.CaptionWord{{Text: "b"}, {Text: "c"}}}}
	if got := clipEmoji(e, lines); len(got.Words) != 3 || got.Rect != e.Rect || e.Words != nil {
		t.Errorf("clip emoji %+v", got)
	}
}
