package transcribe

import (
	"reflect"
	"testing"
)

func TestNumbersAsDigitsText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// Cardinals.
		{"we sold twenty five copies", "we sold 25 copies"},
		{"go forward ten meters", "go forward 10 meters"},
		{"two hundred and fifty people", "250 people"},
		{"three thousand four hundred and twelve", "3412"},
		{"twenty five hundred dollars", "2500 dollars"},
		{"a hundred times", "100 times"},
		{"a thousand words", "1000 words"},
		{"forty two thousand fans", "42,000 fans"},
		{"one hundred thousand and one", "100,001"},
		{"five million views", "5 million views"},
		{"a million", "1 million"},
		{"two million three hundred thousand", "2,300,000"},
		// One to nine alone stay words; so do digits read one by one.
		{"the one thing", "the one thing"},
		{"two of them", "two of them"},
		{"testing one two three", "testing one two three"},
		{"five five four", "five five four"},
		{"zero", "zero"},
		// Years.
		{"in nineteen sixty one we", "in 1961 we"},
		{"twenty twenty four", "2024"},
		{"nineteen oh five", "1905"},
		{"nineteen hundred", "1900"},
		{"eighteen sixty five", "1865"},
		{"two thousand and five", "2005"},
		{"twenty ten", "2010"},
		// A time of day is not a year.
		{"at eleven thirty", "at 11 30"},
		{"nineteen oh", "19 oh"},
		// Decimals, percent, ordinals.
		{"three point five", "3.5"},
		{"zero point two five", "0.25"},
		{"twenty five percent", "25%"},
		{"five percent", "5%"},
		{"the twenty first century", "the 21st century"},
		{"the thirty third", "the 33rd"},
		{"a thirty second ad", "a 30 second ad"},
		{"the first time", "the first time"},
		// Words that look like numbers but are not.
		{"a lot of hundred", "a lot of hundred"},
		{"thousand islands", "thousand islands"},
		{"and then", "and then"},
		{"hundred and", "hundred and"},
		{"fifty and fifty", "50 and 50"},
		{"ninety nine", "99"},
		{"Twenty Five", "25"},
		{"already 25 here", "already 25 here"},
		{"", ""},
	} {
		if got := NumbersAsDigitsText(tc.in); got != tc.want {
			t.Errorf("NumbersAsDigitsText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A number's words become one word spanning them, as sure as its least sure
// word; the words around it keep their times.
func TestNumbersAsDigitsKeepsTimes(t *testing.T) {
	in := []Word{
		{"in", 0, 0.2, 0.9},
		{"nineteen", 0.2, 0.6, 0.8},
		{"sixty", 0.6, 0.9, 0.5},
		{"one", 0.9, 1.1, 0.7},
		{"we", 1.3, 1.4, 1},
	}
	want := []Word{{"in", 0, 0.2, 0.9}, {"1961", 0.2, 1.1, 0.5}, {"we", 1.3, 1.4, 1}}
	if got := NumbersAsDigits(in); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if got := NumbersAsDigits(nil); len(got) != 0 {
		t.Errorf("no words: %v", got)
	}
}
