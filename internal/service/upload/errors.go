package upload

import (
	"errors"
	"fmt"
)

// Errors of the protocol besides *RequestError. Their text completes the
// id they are wrapped with: `upload session "ses_x" not found`.
var (
	// ErrNotFound matches an upload or session id the storage does not
	// know, including a session that a newer start has replaced.
	ErrNotFound = errors.New("not found")
	// ErrComplete matches a start on an upload whose file is whole: its
	// bytes are final, another file needs another upload.
	ErrComplete = errors.New("already complete")
)

// RequestError is a PUT the protocol refuses. Field is the header
// ("Content-Range", "Content-Length") or "body" that broke the rule, and Rule
// says what the client should send instead, such as the byte to resume at.
type RequestError struct {
	Field string
	Rule  string
}

func (e *RequestError) Error() string { return e.Field + ": " + e.Rule }

func refuse(field, format string, args ...any) error {
	return &RequestError{Field: field, Rule: fmt.Sprintf(format, args...)}
}
