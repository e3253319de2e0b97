package rules

import "testing"

func TestRatio(t *testing.T) {
	checkStringRule(t, Ratio, []stringCase{
		{"9:16", ""},
		{"16:9", ""},
		{"1.5:1", ""},
		{"0.5:2.25", ""},
		{"1080:1920", ""},
		{"0:16", `not "0:16"`},
		{"9:0.0", `not "9:0.0"`},
		{"9x16", RatioRule + `, not "9x16"`},
		{"portrait", RatioRule},
		{"-9:16", RatioRule},
		{"+9:16", RatioRule},
		{" 9:16", RatioRule},
		{"9 : 16", RatioRule},
		{"1e3:1", RatioRule},
		{"0x1p1:1", RatioRule},
		{"NaN:1", RatioRule},
		{"Inf:1", RatioRule},
		{".5:1", RatioRule},
		{"1.:1", RatioRule},
		{"9:16:1", RatioRule},
		{":", RatioRule},
		{"", RatioRule},
	})
}

func TestRatioValue(t *testing.T) {
	for in, want := range map[string]float64{"9:16": 0.5625, "1.5:1": 1.5, "1:1": 1, "x": 0, "0:1": 0, "": 0} {
		if got := RatioValue(in); got != want {
			t.Errorf("RatioValue(%q) = %g, want %g", in, got, want)
		}
	}
}
