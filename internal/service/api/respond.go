package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// Error names of filled-gaps.md ("Errors not shown"), plus Forbidden,
// Method Not Allowed, Conflict and Service Unavailable for the cases this
// server adds.
const (
	errBadRequest   = "Bad Request"
	errUnauthorized = "Unauthorized"
	errForbidden    = "Forbidden"
	errNotFound     = "Not Found"
	errMethod       = "Method Not Allowed"
	errConflict     = "Conflict"
	errTooMany      = "TooManyRequests"
	errInternal     = "Internal Server Error"
	errUnavailable  = "Service Unavailable"
)

// maxJSONBody bounds request bodies of the JSON endpoints; a project
// request is a few kilobytes.
const maxJSONBody = 1 << 20

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, name, msg string) {
	writeJSON(w, status, apitypes.ErrorBody{ErrorName: name, ErrorMessage: &msg})
}

// readBody reads a request body of at most maxJSONBody bytes.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxJSONBody))
	var me *http.MaxBytesError
	switch {
	case errors.As(err, &me):
		return nil, badField("body", "must be at most %d bytes", me.Limit)
	case err != nil:
		return nil, badField("body", "could not be read: %v", err)
	}
	return data, nil
}

// decodeJSON reads one JSON value from the body into v, answering type
// mistakes with the JSON path of the offending field.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	data, err := readBody(w, r)
	if err != nil {
		return err
	}
	return unmarshalBody(data, v)
}

// decodeValid decodes the body into a new T and checks it with valid: the
// first broken rule of either is the error.
func decodeValid[T any](w http.ResponseWriter, r *http.Request, valid func(*T) error) (*T, error) {
	var v T
	if err := decodeJSON(w, r, &v); err != nil {
		return nil, err
	}
	if err := valid(&v); err != nil {
		return nil, err
	}
	return &v, nil
}

// unmarshalBody decodes one JSON value of a request body into v, answering
// type mistakes with the JSON path of the offending field.
func unmarshalBody(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return badField(jsonPath(te.Field), "must be %s, not a JSON %s", goTypeName(te.Type.String()), te.Value)
		case errors.As(err, &te):
			return badField("body", "must be %s, not a JSON %s", goTypeName(te.Type.String()), te.Value)
		case errors.As(err, &se):
			return badField("body", "malformed JSON at byte %d: %v", se.Offset, err)
		case errors.Is(err, io.EOF):
			return badField("body", "a JSON object is required")
		default:
			return badField("body", "malformed JSON: %v", err)
		}
	}
	// More is false before a stray '}' or ']', so look for the end instead.
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return badField("body", "malformed JSON: data after the top-level value")
	}
	return nil
}

// jsonPath is the JSON path of an UnmarshalTypeError's Field, which names
// an embedded struct by its Go type ("PostTaskRequest.clipId"). Every JSON
// name of the API starts in lower case, so the upper-case segments are Go's
// and are dropped.
func jsonPath(field string) string {
	segs := strings.Split(field, ".")
	kept := segs[:0]
	for _, s := range segs {
		if s == "" || !unicode.IsUpper(rune(s[0])) {
			kept = append(kept, s)
		}
	}
	return strings.Join(kept, ".")
}

// queryInts reads optional integer query parameters, keeping the first
// error: read them all, then check err once.
type queryInts struct {
	q   url.Values
	err error
}

// get is parameter name within [lo, hi] (hi 0 = no upper bound), def when
// absent; rule is what the 400 says it must be.
func (p *queryInts) get(name string, def, lo, hi int, rule string) int {
	raw := p.q.Get(name)
	if p.err != nil || raw == "" {
		return def
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < lo || (hi > 0 && n > hi) {
		p.err = badField(name, "must be %s, not %q", rule, raw)
	}
	return n
}

// checkMine checks the q=mine of a list of the org's own things.
func checkMine(q string) error {
	if q != qMine {
		return badField("q", "must be mine, not %q", q)
	}
	return nil
}

// goTypeName turns a Go type into the JSON words a client understands,
// with the article ("a number", "an array").
func goTypeName(t string) string {
	t = strings.TrimPrefix(t, "*")
	switch {
	case t == "string":
		return "a string"
	case t == "bool":
		return "a boolean"
	case strings.HasPrefix(t, "float"), strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "a number"
	case strings.HasPrefix(t, "[]"), strings.HasPrefix(t, "["):
		return "an array"
	default:
		return "an object"
	}
}
