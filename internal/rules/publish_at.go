package rules

import (
	"fmt"
	"strings"
	"time"
)

// PublishAtRule states the shape PublishAt checks.
const PublishAtRule = "must be an ISO 8601 UTC timestamp such as 2030-01-02T15:04:05Z"

// PublishAt checks publishAt of a publish schedule: an RFC 3339 timestamp in
// UTC (a Z or +00:00 offset, as the spec asks for UTC) after now. The caller
// passes its clock's now, so the rule stays pure.
func PublishAt(s string, now time.Time) error {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return &Error{Rule: fmt.Sprintf("%s, not %q", PublishAtRule, s)}
	}
	if !strings.HasSuffix(s, "Z") && !strings.HasSuffix(s, "+00:00") {
		return &Error{Rule: fmt.Sprintf("%s: %q is not in UTC", PublishAtRule, s)}
	}
	if !t.After(now) {
		return &Error{Rule: fmt.Sprintf("must be in the future, not %s (now is %s)", s, now.UTC().Format(time.RFC3339))}
	}
	return nil
}
