package rules

import (
	"slices"
	"testing"
)

// Several true switches are settled by LayoutSwitches' precedence, and a disable*
// switch wins over its enable* twin: no combination is refused.
func TestLayoutPicksOneByPrecedence(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		set    map[string]*bool
		layout string
		off    []string
	}{
		{map[string]*bool{}, "", nil},
		{map[string]*bool{"enableSplitLayout": &yes}, "split", nil},
		{map[string]*bool{"skipReframe": &yes, "enableFillLayout": &yes}, "center", nil},
		{map[string]*bool{"enableFitLayout": &no, "skipReframe": &no}, "", []string{"fit", "center"}},
		{map[string]*bool{"disableFillLayout": &yes}, "", []string{"follow", "center"}},
		{map[string]*bool{"enableFillLayout": &no}, "", []string{"follow", "center"}},
		{map[string]*bool{"enableSplitLayout": &yes, "enableGameLayout": &yes}, "game", nil},
		{map[string]*bool{"enableSplitLayout": &yes, "enableAutoLayout": &yes}, "auto", nil},
		{map[string]*bool{"enableThreeLayout": &yes, "enableFourLayout": &yes, "enableScreenLayout": &yes}, "screen", nil},
		{map[string]*bool{"enableFitLayout": &yes, "enableFillLayout": &yes}, "fit", nil},
		{map[string]*bool{"skipReframe": &yes, "enableFitLayout": &yes}, "fit", nil},
		{map[string]*bool{"enableFitLayout": &yes, "disableFitLayout": &yes}, "", []string{"fit"}},
		{map[string]*bool{"enableFitLayout": &yes, "disableFitLayout": &yes, "enableSplitLayout": &yes}, "split", []string{"fit"}},
		{map[string]*bool{"enableFillLayout": &yes, "disableFillLayout": &yes}, "", []string{"follow", "center"}},
		{map[string]*bool{"skipReframe": &yes, "disableFillLayout": &yes}, "", []string{"follow", "center"}},
	}
	for _, c := range cases {
		p := Layout(func(w string) *bool { return c.set[w] })
		if p.Layout != c.layout {
			t.Errorf("%v: layout %q, want %q", c.set, p.Layout, c.layout)
		}
		for _, o := range c.off {
			if !p.Off[o] {
				t.Errorf("%v: %s not turned off (off: %v)", c.set, o, p.Off)
			}
		}
		for o := range p.Off {
			if !slices.Contains(c.off, o) {
				t.Errorf("%v: %s turned off, want only %v", c.set, o, c.off)
			}
		}
	}
}
