package rules

import "fmt"

// Range checks curationPref.range, in seconds: when a range is sent both ends
// are required, with 0 <= startSec < endSec. A nil end is a missing one.
func Range(start, end *float64, n Names) error {
	switch {
	case start == nil || end == nil:
		return &Error{Rule: fmt.Sprintf("%s and %s are both required when range is sent; omit range to clip the whole video",
			n("startSec"), n("endSec"))}
	case *start < 0:
		return &Error{Field: n("startSec"), Rule: fmt.Sprintf("must be >= 0, not %v", *start)}
	case *end < 0:
		return &Error{Field: n("endSec"), Rule: fmt.Sprintf("must be >= 0, not %v", *end)}
	case *start >= *end:
		return &Error{Rule: fmt.Sprintf("%s (%v) must be less than %s (%v)", n("startSec"), *start, n("endSec"), *end)}
	}
	return nil
}
