package rules

import (
	"strings"
	"testing"
)

func TestLength(t *testing.T) {
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"", MaxTitle, ""},
		{strings.Repeat("a", MaxTitle), MaxTitle, ""},
		{strings.Repeat("é", MaxTitle), MaxTitle, ""}, // characters, not bytes
		{strings.Repeat("a", MaxTitle+1), MaxTitle, "must be at most 500 characters, not 501"},
		{strings.Repeat("x", 100000), MaxTitle, "must be at most 500 characters, not 100000"},
		{strings.Repeat("e", 102400), MaxSourceLang, "must be at most 64 characters, not 102400"},
		{"en-US", MaxSourceLang, ""},
	} {
		err := Length(tc.s, tc.max)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("Length(%d chars, %d) = %q, want %q", len(tc.s), tc.max, got, tc.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n, max int
		want   string
	}{
		{0, MaxKeywords, ""},
		{MaxKeywords, MaxKeywords, ""},
		{MaxKeywords + 1, MaxKeywords, "must have at most 50 items, not 51"},
	} {
		err := Count(tc.n, tc.max)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("Count(%d, %d) = %q, want %q", tc.n, tc.max, got, tc.want)
		}
	}
}
