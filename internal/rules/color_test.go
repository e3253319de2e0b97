package rules

import "testing"

func TestHexColor(t *testing.T) {
	checkStringRule(t, HexColor, []stringCase{
		{"#FFCC00", ""},
		{"#fc0", ""},
		{"#FFCC0080", ""},
		{"yellow", HexColorRule + `, not "yellow"`},
		{"FFCC00", HexColorRule},
		{"#FFCC0", HexColorRule},
		{"#GGGGGG", HexColorRule},
		{"", HexColorRule},
	})
}
