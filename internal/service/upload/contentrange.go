package upload

import (
	"strconv"
	"strings"
)

// contentRange is a parsed upload Content-Range header.
type contentRange struct {
	present bool  // the header was sent
	query   bool  // "bytes */N": a status query, no body
	first   int64 // first byte of the chunk
	last    int64 // last byte of the chunk, inclusive
	total   int64 // whole upload size, -1 when the client sent "*" (not known yet)
}

// parseContentRange reads "bytes a-b/N", "bytes a-b/*" or "bytes */N".
func parseContentRange(h string) (contentRange, error) {
	h = strings.TrimSpace(h)
	if h == "" {
		return contentRange{total: -1}, nil
	}
	cr, broken := rangeSpec(h)
	if broken != "" {
		return contentRange{}, refuse("Content-Range", "%s, not %q", broken, h)
	}
	return cr, nil
}

const formRule = `must be "bytes FIRST-LAST/TOTAL" or "bytes */TOTAL"`

// rangeSpec parses a Content-Range; broken is the rule it breaks, if any.
func rangeSpec(h string) (cr contentRange, broken string) {
	spec, ok := strings.CutPrefix(h, "bytes ")
	if !ok {
		return cr, formRule
	}
	rng, totalStr, ok := strings.Cut(strings.TrimSpace(spec), "/")
	if !ok {
		return cr, formRule
	}
	cr = contentRange{present: true, total: -1}
	if totalStr != "*" {
		t, err := digits(totalStr)
		if err != nil || t < 0 {
			return cr, "TOTAL must be a non-negative integer or *"
		}
		cr.total = t
	}
	if rng == "*" {
		if cr.total < 0 {
			return cr, "a status query needs the total: bytes */TOTAL"
		}
		cr.query = true
		return cr, ""
	}
	return chunkRange(cr, rng)
}

// chunkRange reads the FIRST-LAST of a chunk into cr.
func chunkRange(cr contentRange, rng string) (contentRange, string) {
	a, b, ok := strings.Cut(rng, "-")
	if !ok {
		return cr, `must be "bytes FIRST-LAST/TOTAL"`
	}
	var err1, err2 error
	cr.first, err1 = digits(a)
	cr.last, err2 = digits(b)
	switch {
	case err1 != nil || err2 != nil || cr.first < 0:
		return cr, "FIRST and LAST must be non-negative integers"
	case cr.last < cr.first:
		return cr, "LAST must not be below FIRST"
	case cr.total >= 0 && cr.last >= cr.total:
		return cr, "LAST must be below TOTAL"
	}
	return cr, ""
}

// digits reads a decimal number of digits only: RFC 9110's byte positions
// have no sign, which strconv.ParseInt would accept.
func digits(s string) (int64, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseInt(s, 10, 64)
}
