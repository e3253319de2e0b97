package rules

import "fmt"

// PercentRule states the rule Percent checks.
const PercentRule = "must be a percentage of the frame, from 0 to 100"

// Percent checks a coordinate or extent of a placement rectangle
// (emojiStyle.rect, screenOverlays[].rect): a percentage of the frame, so a
// value outside 0..100 would place it off the frame.
func Percent(v float64) error {
	if v < 0 || v > 100 {
		return &Error{Rule: percentBroken(v)}
	}
	return nil
}

func percentBroken(v float64) string { return fmt.Sprintf("%s, not %v", PercentRule, v) }

// Rect checks every coordinate and extent of a placement rectangle that is
// set (nil is unset) with Percent, naming the field at fault.
func Rect(x, y, w, h *float64, n Names) error {
	for _, f := range []struct {
		wire string
		v    *float64
	}{{"xPct", x}, {"yPct", y}, {"wPct", w}, {"hPct", h}} {
		if f.v != nil && Percent(*f.v) != nil {
			return &Error{Field: n(f.wire), Rule: percentBroken(*f.v)}
		}
	}
	return nil
}

// FontSizeRule states the rule FontSize checks.
const FontSizeRule = "must be a font size above 0"

// FontSize checks font.numericalSize, the caption size: a size of zero or
// less draws nothing.
func FontSize(v float64) error {
	if v <= 0 {
		return &Error{Rule: fmt.Sprintf("%s, not %v", FontSizeRule, v)}
	}
	return nil
}
