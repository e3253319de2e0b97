package rules

import "testing"

func TestRange(t *testing.T) {
	num := func(v float64) *float64 { return &v }
	cases := []struct {
		name       string
		start, end *float64
		names      Names
		field      string
		want       string
	}{
		{"whole seconds", num(0), num(60), APINames, "", ""},
		{"fractions", num(1.5), num(2.25), APINames, "", ""},
		{"reversed", num(60), num(30), APINames, "", "startSec (60) must be less than endSec (30)"},
		{"empty", num(30), num(30), AttributeNames, "", "start_sec (30) must be less than end_sec (30)"},
		{"negative start", num(-1), num(5), APINames, "startSec", "must be >= 0, not -1"},
		{"negative start, attribute names", num(-5), num(30), AttributeNames, "start_sec", "must be >= 0, not -5"},
		{"negative end", num(0), num(-2), APINames, "endSec", "must be >= 0, not -2"},
		{"no end", num(5), nil, APINames, "", "startSec and endSec are both required when range is sent; omit range to clip the whole video"},
		{"no start", nil, num(5), AttributeNames, "", "start_sec and end_sec are both required"},
		{"neither", nil, nil, APINames, "", "are both required"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantBroken(t, Range(tc.start, tc.end, tc.names), tc.field, tc.want)
		})
	}
}
