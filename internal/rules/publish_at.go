package rules

import (
	"fmt"
	"strings"
	"time"
)

// PublishAtRule states the shape PublishAt checks.
const PublishAtRule = "must be an ISO 8601 UTC timestamp such as 2030-01-02T15:04:05Z"

// PublishTimeRule states the shape PublishTime checks.
const PublishTimeRule = "must be an RFC 3339 timestamp such as 2030-01-02T15:04:05Z or 2030-01-02T16:04:05+01:00"

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
	return PublishAfter(s, t, now)
}

// PublishTime checks the shape of a publish time as a user writes it, an RFC
// 3339 timestamp with any offset, and returns its instant. The provider
// takes any offset and sends the instant in UTC, the form PublishAt wants.
func PublishTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, &Error{Rule: fmt.Sprintf("%s, not %q", PublishTimeRule, s)}
	}
	return t, nil
}

// PublishAfter checks that t, the instant of the publish time s, is after
// now: a schedule can only be made for the future.
func PublishAfter(s string, t, now time.Time) error {
	if !t.After(now) {
		return &Error{Rule: fmt.Sprintf("must be in the future, not %s (now is %s)", s, now.UTC().Format(time.RFC3339))}
	}
	return nil
}
