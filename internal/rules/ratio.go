package rules

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// RatioRule states the rule Ratio checks. service-interface.md gives
// renderPref.fitLayoutCropRatio the "ratio form w:h" and no more, so a side
// may be a decimal number (1.5:1); signs, exponents and spaces are not part
// of that form.
const RatioRule = "must be a ratio w:h of two positive numbers such as 9:16 or 1.5:1"

var ratioSide = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// Ratio checks a ratio written w:h, such as renderPref.fitLayoutCropRatio.
func Ratio(s string) error {
	w, h, ok := strings.Cut(s, ":")
	if !ok || !positiveDecimal(w) || !positiveDecimal(h) {
		return &Error{Rule: fmt.Sprintf("%s, not %q", RatioRule, s)}
	}
	return nil
}

// positiveDecimal reports whether s is digits with an optional fraction, of a
// finite value above zero.
func positiveDecimal(s string) bool {
	if !ratioSide.MatchString(s) {
		return false
	}
	v, err := strconv.ParseFloat(s, 64)
	return err == nil && v > 0
}

// RatioValue is w/h of a ratio Ratio accepts (0 when it does not).
func RatioValue(s string) float64 {
	if Ratio(s) != nil {
		return 0
	}
	w, h, _ := strings.Cut(s, ":")
	wv, _ := strconv.ParseFloat(w, 64)
	hv, _ := strconv.ParseFloat(h, 64)
	return wv / hv
}
