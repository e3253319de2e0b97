package upload

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseContentRange checks the parser's properties on any header: a
// refusal is a RequestError naming Content-Range; a parsed chunk has
// 0 <= FIRST <= LAST, below TOTAL when the total is known; a status query
// has a total; and the range written back in the canonical form parses to
// the same value. Seeds are in testdata/fuzz/FuzzParseContentRange.
func FuzzParseContentRange(f *testing.F) {
	f.Fuzz(func(t *testing.T, header string) {
		cr, err := parseContentRange(header)
		if err != nil {
			var re *RequestError
			if !errors.As(err, &re) || re.Field != "Content-Range" || re.Rule == "" {
				t.Fatalf("parseContentRange(%q) error %v is not a rule of Content-Range", header, err)
			}
			return
		}
		checkParsedRange(t, header, cr)
		again, err := parseContentRange(canonicalContentRange(cr))
		if err != nil || again != cr {
			t.Fatalf("parseContentRange(%q) = %+v, written back as %q parses to %+v, %v",
				header, cr, canonicalContentRange(cr), again, err)
		}
	})
}

// checkParsedRange checks what every parsed Content-Range satisfies.
func checkParsedRange(t *testing.T, header string, cr contentRange) {
	t.Helper()
	switch {
	case !cr.present:
		if strings.TrimSpace(header) != "" || cr.total != -1 {
			t.Fatalf("parseContentRange(%q) = %+v: absent, yet the header is not empty", header, cr)
		}
	case cr.query:
		if cr.total < 0 {
			t.Fatalf("parseContentRange(%q) = %+v: a status query without a total", header, cr)
		}
	case cr.first < 0 || cr.last < cr.first || cr.total < -1 || cr.total >= 0 && cr.last >= cr.total:
		t.Fatalf("parseContentRange(%q) = %+v: not 0 <= FIRST <= LAST < TOTAL", header, cr)
	}
}

// canonicalContentRange writes cr in the canonical form a client sends.
func canonicalContentRange(cr contentRange) string {
	total := "*"
	if cr.total >= 0 {
		total = strconv.FormatInt(cr.total, 10)
	}
	switch {
	case !cr.present:
		return ""
	case cr.query:
		return "bytes */" + total
	}
	return "bytes " + strconv.FormatInt(cr.first, 10) + "-" + strconv.FormatInt(cr.last, 10) + "/" + total
}
