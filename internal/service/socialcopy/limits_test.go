package socialcopy

import "testing"

func TestTruncate(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		limit int
		u     unit
		want  string
	}{
		{"fits", "hello world", 11, codePoint, "hello world"},
		{"word boundary", "hello big world", 12, codePoint, "hello big…"},
		{"cut exactly before a space", "hello big world", 10, codePoint, "hello big…"},
		{"one word too long", "abcdefghij", 5, codePoint, "abcd…"},
		{"dangling punctuation dropped", "one, two, three", 10, codePoint, "one, two…"},
		{"sentence end dropped before the ellipsis", "One. Two three", 8, codePoint, "One…"},
		{"nothing fits", "hello", 1, codePoint, ""},
		{"zero", "hello", 0, codePoint, ""},
		{"negative room", "hello", -3, codePoint, ""},
		{"bytes count multibyte runes", "ééééé ééééé", 15, utf8Byte, "ééééé…"},
		{"bytes cut inside a long word", "ééééé", 9, utf8Byte, "ééé…"},
		{"twitter weighs CJK 2", "日本語 の 動画", 9, twitterWeight, "日本語…"},
		{"twitter weighs latin 1", "abc def ghi", 9, twitterWeight, "abc def…"},
		{"utf-16 counts an emoji 2", "😀😀 😀😀", 5, utf16Unit, "😀😀…"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := truncate(c.in, c.limit, c.u)
			if got != c.want {
				t.Errorf("truncate(%q, %d) = %q, want %q", c.in, c.limit, got, c.want)
			}
			if width(got, c.u) > max(c.limit, 0) {
				t.Errorf("truncate(%q, %d) = %q counts %d", c.in, c.limit, got, width(got, c.u))
			}
		})
	}
}

func TestUnits(t *testing.T) {
	cases := []struct {
		s                             string
		points, bytes, utf16, twitter int
	}{
		{"abc", 3, 3, 3, 3},
		{"é", 1, 2, 1, 1},
		{"日本", 2, 6, 2, 4},
		{"😀", 1, 4, 2, 2},
		{"“quoted” – ok", 13, 19, 13, 13}, // general punctuation weighs 1 on X
		{"…", 1, 3, 1, 2},
	}
	for _, c := range cases {
		got := [4]int{width(c.s, codePoint), width(c.s, utf8Byte), width(c.s, utf16Unit), width(c.s, twitterWeight)}
		if want := [4]int{c.points, c.bytes, c.utf16, c.twitter}; got != want {
			t.Errorf("%q counts %v (code points, bytes, UTF-16, X), want %v", c.s, got, want)
		}
	}
}
