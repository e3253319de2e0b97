package upload

import (
	"strings"
	"testing"
)

func TestParseContentRange(t *testing.T) {
	t.Parallel()
	good := []struct {
		in   string
		want contentRange
	}{
		{"", contentRange{total: -1}},
		{"bytes 0-99/300", contentRange{present: true, first: 0, last: 99, total: 300}},
		{"bytes 100-199/*", contentRange{present: true, first: 100, last: 199, total: -1}},
		{"bytes */300", contentRange{present: true, query: true, total: 300}},
	}
	for _, c := range good {
		got, err := parseContentRange(c.in)
		if err != nil || got != c.want {
			t.Errorf("parseContentRange(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"bytes=0-99/300", "bytes 0-99", "bytes 99-0/300", "bytes 0-300/300", "bytes */*",
		"bytes -1-5/10", "bytes a-b/10", "items 0-1/2", "bytes +0-+9/+10", "bytes 0-9/+10", "bytes */+10", "bytes 0-9/1_0"} {
		_, err := parseContentRange(in)
		if err == nil || !strings.HasPrefix(err.Error(), "Content-Range: ") {
			t.Errorf("parseContentRange(%q) error = %v, want one naming Content-Range", in, err)
		}
	}
}
