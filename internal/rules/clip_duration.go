package rules

import (
	"fmt"
	"strconv"
	"strings"
)

// ClipDurationRule states the rule ClipDuration checks for an item of
// curationPref.clipDurations (filled-gaps.md: pairs [min, max] in seconds,
// 0 <= min < max).
const ClipDurationRule = "must be a pair [min, max] of seconds with 0 <= min < max"

const clipDurationShape = "must be an array of exactly two numbers [min, max] of seconds"

// ClipDuration checks one item of curationPref.clipDurations, given as the
// numbers it holds.
func ClipDuration(item []float64) error {
	if len(item) != 2 {
		return ClipDurationShape(compactNumbers(item))
	}
	if lo, hi := item[0], item[1]; !(lo >= 0 && lo < hi) {
		return &Error{Rule: fmt.Sprintf("%s, not [%v, %v]", ClipDurationRule, lo, hi)}
	}
	return nil
}

// ClipDurationShape is the error for an item of clipDurations that is not an
// array of numbers (a string, a null), shown as got in the caller's notation.
func ClipDurationShape(got string) error {
	return &Error{Rule: fmt.Sprintf("%s, not %s", clipDurationShape, got)}
}

// compactNumbers writes numbers the way compact JSON does: [10,20,30].
func compactNumbers(nums []float64) string {
	parts := make([]string, len(nums))
	for i, v := range nums {
		parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return "[" + strings.Join(parts, ",") + "]"
}
