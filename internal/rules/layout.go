package rules

// LayoutSwitch is a renderPref switch that, set true, picks a layout.
type LayoutSwitch struct{ Wire, Layout string }

// LayoutSwitches are renderPref's layout switches, in the order of precedence that
// settles a renderPref (a request's or a stored template's) that sets more than one:
// auto, game, screen, four, three, split, fit, then the crop (follow, or center with
// skipReframe). The service's API describes the switches as independent, so no
// combination is refused. The layouts are clipperd's (media.Layout*).
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
	// Layout is the layout its true switches pick (the first by LayoutSwitches'
	// precedence that no disable* switch turns off); "" when none is.
	Layout string
	// Off are the layouts it turns off: switches set false, and disableFitLayout or
	// disableFillLayout set true (fit, and the crops follow and center).
	Off map[string]bool
}

// Layout reads the layout switches of one renderPref: get returns a switch's value by its
// wire name (nil unset). Of several true switches the first in LayoutSwitches wins; a
// disable* switch set true wins over its enable* twin (disableFillLayout also over
// skipReframe: it turns the crop off); skipReframe with enableFillLayout is the fixed
// crop (fill without following).
func Layout(get func(wire string) *bool) LayoutPick {
	pick := LayoutPick{Off: map[string]bool{}}
	if v := get("disableFitLayout"); v != nil && *v {
		pick.Off["fit"] = true
	}
	if v := get("disableFillLayout"); v != nil && *v {
		pick.Off["follow"], pick.Off["center"] = true, true
	}
	for _, s := range LayoutSwitches {
		v := get(s.Wire)
		switch {
		case v == nil:
		case !*v:
			pick.Off[s.Layout] = true
		case pick.Layout == "" && !pick.Off[s.Layout]:
			pick.Layout = s.Layout
		}
	}
	if pick.Off["follow"] && get("enableFillLayout") != nil {
		pick.Off["center"] = true // enableFillLayout false: no crop at all
	}
	return pick
}
