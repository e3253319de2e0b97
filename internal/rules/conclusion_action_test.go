package rules

import "testing"

func TestConclusionAction(t *testing.T) {
	cases := []struct {
		name            string
		typ, url, email string
		field, want     string
	}{
		{"webhook", "WEBHOOK", "https://hooks.example.com/clipper", "", "", ""},
		{"email", "EMAIL", "", "ops@example.com", "", ""},
		{"webhook without url", "WEBHOOK", "", "", "url", "a WEBHOOK action needs an absolute http(s) url"},
		{"webhook ftp url", "WEBHOOK", "ftp://hooks.example.com/x", "", "url", HTTPURLRule + `: "ftp://hooks.example.com/x" has scheme "ftp"`},
		{"webhook with email", "WEBHOOK", "https://hooks.example.com/x", "ops@example.com", "email", "does not apply when type is WEBHOOK; remove it"},
		{"email without email", "EMAIL", "", "", "email", "an EMAIL action needs an email address such as ops@example.com"},
		{"email bad address", "EMAIL", "", "not-an-address", "email", EmailRule},
		{"email with url", "EMAIL", "https://hooks.example.com/x", "ops@example.com", "url", "does not apply when type is EMAIL; remove it"},
		{"unknown type", "SMS", "", "", "type", `must be WEBHOOK or EMAIL, not "SMS"`},
		{"no type", "", "https://hooks.example.com/x", "", "type", `must be WEBHOOK or EMAIL, not ""`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantBroken(t, ConclusionAction(tc.typ, tc.url, tc.email), tc.field, tc.want)
		})
	}
}

func TestConclusionActionCount(t *testing.T) {
	cases := []struct {
		n    int
		want string
	}{
		{0, ""},
		{1, ""},
		{MaxConclusionActions, ""},
		{MaxConclusionActions + 1, "at most 10 conclusion actions per project, not 11"},
		{1000, "at most 10 conclusion actions per project, not 1000"},
	}
	for _, tc := range cases {
		wantBroken(t, ConclusionActionCount(tc.n), "", tc.want)
	}
}
