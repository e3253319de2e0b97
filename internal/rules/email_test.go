package rules

import "testing"

func TestEmail(t *testing.T) {
	checkStringRule(t, Email, []stringCase{
		{"ops@example.com", ""},
		{"first.last+tag@sub.example.org", ""},
		{"ops.example.com", EmailRule + `: "ops.example.com"`},
		{"Ops <ops@example.com>", `is not a bare address (want "ops@example.com")`},
		{" ops@example.com", "not a bare address"},
		{"", EmailRule},
	})
}
