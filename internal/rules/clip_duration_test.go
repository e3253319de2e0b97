package rules

import "testing"

func TestClipDuration(t *testing.T) {
	cases := []struct {
		name string
		item []float64
		want string
	}{
		{"pair", []float64{15, 30}, ""},
		{"from zero", []float64{0, 60}, ""},
		{"fractions", []float64{0.5, 1.5}, ""},
		{"reversed", []float64{30, 10}, ClipDurationRule + ", not [30, 10]"},
		{"equal", []float64{30, 30}, ClipDurationRule + ", not [30, 30]"},
		{"negative min", []float64{-5, 10}, ClipDurationRule + ", not [-5, 10]"},
		{"three numbers", []float64{10, 20, 30}, "must be an array of exactly two numbers [min, max] of seconds, not [10,20,30]"},
		{"one number", []float64{30}, "exactly two numbers [min, max] of seconds, not [30]"},
		{"none", nil, "exactly two numbers [min, max] of seconds, not []"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantBroken(t, ClipDuration(tc.item), "", tc.want)
		})
	}
	// Items that are not numbers at all are shown in the caller's notation.
	wantBroken(t, ClipDurationShape(`["5",10]`), "", `must be an array of exactly two numbers [min, max] of seconds, not ["5",10]`)
}
