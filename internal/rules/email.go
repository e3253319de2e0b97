package rules

import (
	"fmt"
	"net/mail"
)

// EmailRule states the rule Email checks.
const EmailRule = "must be an email address such as ops@example.com"

// Email checks a bare email address: ops@example.com, not "Ops <ops@example.com>".
func Email(s string) error {
	a, err := mail.ParseAddress(s)
	switch {
	case err != nil:
		return &Error{Rule: fmt.Sprintf("%s: %q: %v", EmailRule, s, err)}
	case a.Address != s:
		return &Error{Rule: fmt.Sprintf("%s: %q is not a bare address (want %q)", EmailRule, s, a.Address)}
	}
	return nil
}
