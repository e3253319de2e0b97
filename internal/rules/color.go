package rules

import (
	"fmt"
	"regexp"
)

// HexColorRule states the rule HexColor checks.
const HexColorRule = "must be a hex color such as #FFCC00 (#RGB, #RRGGBB or #RRGGBBAA)"

var hexColor = regexp.MustCompile(`^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$`)

// HexColor checks a color of the render preferences (highlightColor.primary,
// captionAnimation.highlightColor, ...).
func HexColor(s string) error {
	if !hexColor.MatchString(s) {
		return &Error{Rule: fmt.Sprintf("%s, not %q", HexColorRule, s)}
	}
	return nil
}
