package rules

import "testing"

func TestPostTitle(t *testing.T) {
	checkStringRule(t, PostTitle, []stringCase{
		{"Our launch", ""},
		{" padded ", ""},
		{"", PostTitleRule},
		{" \t\n", PostTitleRule},
	})
}
