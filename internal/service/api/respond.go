package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// Error names of filled-gaps.md ("Errors not shown"), plus Forbidden and
// Conflict for the cases this server adds.
const (
	errBadRequest   = "Bad Request"
	errUnauthorized = "Unauthorized"
	errForbidden    = "Forbidden"
	errNotFound     = "Not Found"
	errConflict     = "Conflict"
	errTooMany      = "TooManyRequests"
	errInternal     = "Internal Server Error"
	errNotAvailable = "Not Implemented"
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

// fieldError is an invalid request: the field (a JSON path, header or query
// name) and the rule it broke. It becomes a 400.
type fieldError struct {
	Field string
	Rule  string
}

func (e *fieldError) Error() string { return e.Field + ": " + e.Rule }

func badField(field, format string, args ...any) error {
	return &fieldError{Field: field, Rule: fmt.Sprintf(format, args...)}
}

// fail answers err: a fieldError is a 400 naming the field; anything else a 500
// whose details go to the log, not to the caller.
func (a *API) fail(w http.ResponseWriter, r *http.Request, err error) {
	var fe *fieldError
	if errors.As(err, &fe) {
		writeError(w, http.StatusBadRequest, errBadRequest, fe.Error())
		return
	}
	a.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	writeError(w, http.StatusInternalServerError, errInternal, "internal error; see the server log")
}

// decodeJSON reads one JSON value from the body into v, answering type
// mistakes with the JSON path of the offending field.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxJSONBody))
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		var me *http.MaxBytesError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return badField(te.Field, "must be a %s, not a JSON %s", goTypeName(te.Type.String()), te.Value)
		case errors.As(err, &te):
			return badField("body", "must be a JSON %s, not a JSON %s", goTypeName(te.Type.String()), te.Value)
		case errors.As(err, &se):
			return badField("body", "malformed JSON at byte %d: %v", se.Offset, err)
		case errors.As(err, &me):
			return badField("body", "must be at most %d bytes", me.Limit)
		case errors.Is(err, io.EOF):
			return badField("body", "a JSON object is required")
		default:
			return badField("body", "malformed JSON: %v", err)
		}
	}
	if dec.More() {
		return badField("body", "malformed JSON: data after the top-level value")
	}
	return nil
}

// goTypeName turns a Go type into the JSON word a client understands.
func goTypeName(t string) string {
	t = strings.TrimPrefix(t, "*")
	switch {
	case t == "string":
		return "string"
	case t == "bool":
		return "boolean"
	case strings.HasPrefix(t, "float"), strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "number"
	case strings.HasPrefix(t, "[]"), strings.HasPrefix(t, "["):
		return "array"
	default:
		return "object"
	}
}
