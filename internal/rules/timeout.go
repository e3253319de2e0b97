package rules

import (
	"fmt"
	"time"
)

// TimeoutRule states the rule Timeout checks.
const TimeoutRule = "must be a positive duration such as 30s, 10m or 2h45m"

// Timeout checks an operation timeout written as a Go duration string: it
// must parse and be above zero, since a zero or negative timeout ends the
// operation before its first request.
func Timeout(s string) error {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return &Error{Rule: fmt.Sprintf("%s, not %q", TimeoutRule, s)}
	case d <= 0:
		return &Error{Rule: fmt.Sprintf("%s, not %q (%s)", TimeoutRule, s, d)}
	}
	return nil
}
