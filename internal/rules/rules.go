// Package rules holds the validation rules that the provider checks at plan
// time and clipperd checks on each request, written once so the two cannot
// disagree about what is valid. Each rule is a pure function of the values it
// checks: no Terraform types, no network, no filesystem.
//
// A broken rule is an *Error saying what the value must be; the caller puts
// the name of the checked field in front ("curationPref.range: ..." in
// clipperd, "curation.range: ..." in the provider).
package rules

import "strings"

// Error is a broken rule.
type Error struct {
	// Field is the field at fault inside the checked value, named as the
	// caller's Names name it; empty when the value as a whole breaks the rule.
	Field string
	// Rule says what the field must be and what it is, e.g.
	// `must be a ratio w:h of two positive numbers such as 9:16 or 1.5:1, not "9x16"`.
	Rule string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Rule
	}
	return e.Field + ": " + e.Rule
}

// Names gives the name a caller shows for a field that the service API names
// wire (camelCase, as service-interface.md writes it). Rules that mention the
// fields of the value they check name them through it, so clipperd's messages
// speak the API (startSec) and the provider's its attributes (start_sec).
type Names func(wire string) string

// APINames are the service API's own field names, for clipperd.
func APINames(wire string) string { return wire }

// AttributeNames are the provider's Terraform attribute names: the snake_case
// forms of the API names (startSec -> start_sec).
func AttributeNames(wire string) string {
	var b strings.Builder
	for _, r := range wire {
		if 'A' <= r && r <= 'Z' {
			b.WriteByte('_')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
