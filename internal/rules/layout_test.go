package rules

import (
	"strings"
	"testing"
)

func TestLayoutPicksOneAndNamesConflicts(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		set      map[string]*bool
		layout   string
		off      []string
		conflict string
	}{
		{map[string]*bool{}, "", nil, ""},
		{map[string]*bool{"enableSplitLayout": &yes}, "split", nil, ""},
		{map[string]*bool{"skipReframe": &yes, "enableFillLayout": &yes}, "center", nil, ""},
		{map[string]*bool{"enableFitLayout": &no, "skipReframe": &no}, "", []string{"fit", "center"}, ""},
		{map[string]*bool{"disableFillLayout": &yes}, "", []string{"follow", "center"}, ""},
		{map[string]*bool{"enableFillLayout": &no}, "", []string{"follow", "center"}, ""},
		{map[string]*bool{"enableSplitLayout": &yes, "enableGameLayout": &yes}, "game", nil, "enable_game_layout and enable_split_layout are both true"},
		{map[string]*bool{"skipReframe": &yes, "enableFitLayout": &yes}, "fit", nil, "enable_fit_layout and skip_reframe are both true"},
		{map[string]*bool{"enableFillLayout": &yes, "disableFillLayout": &yes}, "follow", nil, "enable_fill_layout and disable_fill_layout are both true"},
	}
	for _, c := range cases {
		p := Layout(func(w string) *bool { return c.set[w] }, AttributeNames)
		if p.Layout != c.layout {
			t.Errorf("%v: layout %q, want %q", c.set, p.Layout, c.layout)
		}
		for _, o := range c.off {
			if !p.Off[o] {
				t.Errorf("%v: %s not turned off (off: %v)", c.set, o, p.Off)
			}
		}
		switch {
		case c.conflict == "" && p.Conflict != nil:
			t.Errorf("%v: unexpected conflict %v", c.set, p.Conflict)
		case c.conflict != "" && (p.Conflict == nil || !strings.HasPrefix(p.Conflict.Error(), c.conflict)):
			t.Errorf("%v: conflict %v, want one starting %q", c.set, p.Conflict, c.conflict)
		}
	}
}
