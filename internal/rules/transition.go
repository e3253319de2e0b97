package rules

import (
	"fmt"
	"slices"
	"strings"
)

// TransitionNames are the names renderPref.selectedTransitions takes, each an ffmpeg xfade
// transition (the guide's table of transitions lists them).
var TransitionNames = []string{
	"fade", "dissolve", "fadeblack", "fadewhite", "fadegrays", "distance", "pixelize",
	"wipeleft", "wiperight", "wipeup", "wipedown",
	"slideleft", "slideright", "slideup", "slidedown",
	"smoothleft", "smoothright", "smoothup", "smoothdown",
	"circleopen", "circleclose", "circlecrop", "rectcrop", "radial",
	"vertopen", "vertclose", "horzopen", "horzclose",
	"diagtl", "diagtr", "diagbl", "diagbr",
	"hlslice", "hrslice", "vuslice", "vdslice",
	"hblur", "squeezeh", "squeezev", "zoomin",
}

// TransitionName is a selectedTransitions name as it is compared: trimmed, lower case.
func TransitionName(n string) string { return strings.ToLower(strings.TrimSpace(n)) }

// Transition checks one name of selectedTransitions: an unknown name would draw nothing.
func Transition(name string) error {
	if slices.Contains(TransitionNames, TransitionName(name)) {
		return nil
	}
	return &Error{Rule: fmt.Sprintf("must be a transition (one of %s), not %q", strings.Join(TransitionNames, ", "), name)}
}
