package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/upload"
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

// fail answers err: a fieldError is a 400 naming the field, the upload
// protocol's errors a 400, 404 or 409; anything else a 500 whose details go
// to the log, not to the caller.
func (a *API) fail(w http.ResponseWriter, r *http.Request, err error) {
	var fe *fieldError
	var ue *upload.RequestError
	switch {
	case errors.As(err, &fe):
		writeError(w, http.StatusBadRequest, errBadRequest, fe.Error())
		return
	case errors.As(err, &ue):
		writeError(w, http.StatusBadRequest, errBadRequest, ue.Error())
		return
	case errors.Is(err, upload.ErrNotFound):
		writeError(w, http.StatusNotFound, errNotFound, err.Error())
		return
	case errors.Is(err, upload.ErrComplete):
		writeError(w, http.StatusConflict, errConflict, err.Error())
		return
	}
	a.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	writeError(w, http.StatusInternalServerError, errInternal, "internal error; see the server log")
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

// unmarshalBody decodes one JSON value of a request body into v, answering
// type mistakes with the JSON path of the offending field.
func unmarshalBody(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return badField(te.Field, "must be %s, not a JSON %s", goTypeName(te.Type.String()), te.Value)
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
	if dec.More() {
		return badField("body", "malformed JSON: data after the top-level value")
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
