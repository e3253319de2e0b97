package rules

import "testing"

func TestPrivacy(t *testing.T) {
	checkStringRule(t, Privacy, []stringCase{
		{"public", ""},
		{"private", ""},
		{"unlisted", ""},
		{"", ""},
		{"PUBLIC", PrivacyRule + `, not "PUBLIC"`},
		{"friends", `must be one of public, private, unlisted, not "friends"`},
	})
}
