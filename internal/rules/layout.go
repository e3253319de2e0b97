package rules

import "fmt"

// LayoutSwitch is a renderPref switch that, set true, picks a layout.
type LayoutSwitch struct{ Wire, Layout string }

// LayoutSwitches are renderPref's layout switches, in the order of precedence that
// settles a stored preference that sets more than one (a request may set one only):
// auto, game, screen, four, three, split, fit, then the crop (follow, or center with
// skipReframe). The layouts are clipperd's (media.Layout*).
var LayoutSwitches = []LayoutSwitch{
	{"enableAutoLayout", "auto"},
	{"enableGameLayout", "game"},
	{"enableScreenLayout", "screen"},
	{"enableFourLayout", "four"},
	{"enableThreeLayout", "three"},
	{"enableSplitLayout", "split"},
	{"enableFitLayout", "fit"},
	{"skipReframe", "center"},
	{"enableFillLayout", "follow"},
}

// LayoutPick is what one renderPref's layout switches say.
type LayoutPick struct {
	// Layout is the layout its true switches pick (by LayoutSwitches' precedence when
	// they conflict); "" when none is true.
	Layout string
	// Off are the layouts it turns off: switches set false, and disableFitLayout or
	// disableFillLayout set true (fit, and the crops follow and center).
	Off map[string]bool
	// Conflict, when not nil, names the two switches that pick different layouts.
	Conflict *Error
}

// Layout reads the layout switches of one renderPref: get returns a switch's value by its
// wire name (nil unset). Two true switches that pick different layouts conflict, and so
// does a layout both enabled and disabled; skipReframe with enableFillLayout is the fixed
// crop (fill without following), not a conflict.
func Layout(get func(wire string) *bool, n Names) LayoutPick {
	pick := LayoutPick{Off: map[string]bool{}}
	var first string
	for _, s := range LayoutSwitches {
		v := get(s.Wire)
		switch {
		case v == nil:
		case !*v:
			pick.Off[s.Layout] = true
		case pick.Layout == "":
			pick.Layout, first = s.Layout, s.Wire
		case pick.Layout == "center" && s.Layout == "follow":
			// skipReframe refines the crop enableFillLayout asks for.
		case pick.Conflict == nil:
			pick.Conflict = &Error{Rule: fmt.Sprintf("%s and %s are both true but pick different layouts (%s, %s): set at most one layout",
				n(first), n(s.Wire), pick.Layout, s.Layout)}
		}
	}
	for _, d := range []struct{ wire, enable string }{{"disableFitLayout", "enableFitLayout"}, {"disableFillLayout", "enableFillLayout"}} {
		if v := get(d.wire); v != nil && *v {
			if e := get(d.enable); e != nil && *e && pick.Conflict == nil {
				pick.Conflict = &Error{Rule: fmt.Sprintf("%s and %s are both true", n(d.enable), n(d.wire))}
			}
			if d.wire == "disableFitLayout" {
				pick.Off["fit"] = true
			} else {
				pick.Off["follow"], pick.Off["center"] = true, true
			}
		}
	}
	if pick.Off["follow"] && get("enableFillLayout") != nil {
		pick.Off["center"] = true // enableFillLayout false: no crop at all
	}
	return pick
}
