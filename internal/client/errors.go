package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// APIError is a non-success answer of the service.
type APIError struct {
	StatusCode   int
	ErrorName    string // errorName of the body ("" if none)
	ErrorMessage string // errorMessage of the body, or the start of a non-JSON body
	Method, Path string
	RetryAfter   time.Duration // from Retry-After, 0 if absent
	CapReason    string        // X-Cap-Reason header ("concurrent")
}

// Error reads like `POST /api/clip-projects: 400 Bad Request: curationPref.range: ...`.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d", e.Method, e.Path, e.StatusCode)
	status := http.StatusText(e.StatusCode)
	if status != "" {
		b.WriteString(" " + status)
	}
	// The errorName often repeats the status text ("Bad Request"); show it only
	// when it adds something ("QuotaExceed").
	if e.ErrorName != "" && !sameWords(e.ErrorName, status) {
		b.WriteString(": " + e.ErrorName)
	}
	if e.ErrorMessage != "" {
		b.WriteString(": " + e.ErrorMessage)
	}
	if e.CapReason != "" {
		b.WriteString(" (cap reason: " + e.CapReason + ")")
	}
	return b.String()
}

func sameWords(a, b string) bool {
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, " ", "")) }
	return norm(a) == norm(b)
}

// MonthlyCapError is the 403 API_MONTHLY_CAP_REACHED answer. It is never
// retried: access resumes only at ResetAt.
type MonthlyCapError struct {
	ResetAt    time.Time
	UpgradeURL string

	api *APIError // the underlying response, for errors.As(err, **APIError)
}

// Error names reset_at and upgrade_url so a user knows when and where to act.
func (e *MonthlyCapError) Error() string {
	reset := "unknown"
	if !e.ResetAt.IsZero() {
		reset = e.ResetAt.UTC().Format(time.RFC3339)
	}
	where := ""
	if e.api != nil {
		where = e.api.Method + " " + e.api.Path + ": "
	}
	return fmt.Sprintf("%smonthly API cap reached (%s): access resumes at reset_at=%s; raise the cap at upgrade_url=%s",
		where, apitypes.CodeMonthlyCap, reset, e.UpgradeURL)
}

// Unwrap exposes the 403 as an *APIError too.
func (e *MonthlyCapError) Unwrap() error {
	if e.api == nil {
		return nil
	}
	return e.api
}

// StalledError ends WaitForProject when the project is STALLED.
type StalledError struct {
	Project *apitypes.Project
}

// Error includes the project's error and stallCount.
func (e *StalledError) Error() string {
	p := e.Project
	if p == nil {
		return "project stalled"
	}
	msg := "no error reported"
	if p.Error != nil && *p.Error != "" {
		msg = *p.Error
	}
	count := "unknown"
	if p.StallCount != nil {
		count = strconv.FormatInt(*p.StallCount, 10)
	}
	return fmt.Sprintf("project %s stalled (stallCount %s): %s", p.ID, count, msg)
}

// IsNotFound reports whether err is (or wraps) a 404 answer.
func IsNotFound(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.StatusCode == http.StatusNotFound
}

// IsTransient reports whether err says nothing about the request's subject,
// only that the service could not be asked right now: no whole answer came
// back (a refused, reset or dropped connection, a timeout, an EOF), or the
// answer was a 5xx, 408 or 429. Any other answer (404, 401, 400, the monthly
// cap, a body that does not decode) is the service's word and is not.
func IsTransient(err error) bool {
	if err == nil {
		return false
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.StatusCode >= 500 || ae.StatusCode == http.StatusRequestTimeout || ae.StatusCode == http.StatusTooManyRequests
	}
	var te *TransportError
	return errors.As(err, &te)
}

// TransportError is a call that got no whole answer after its attempts: the
// connection failed, was cut off or timed out.
type TransportError struct {
	Method, Path   string
	Attempts       int
	AttemptTimeout time.Duration // the deadline of each attempt, 0 if none
	Err            error         // the last attempt's failure
}

// Error names the last attempt's failure; when that was the attempt's own
// deadline, it says so, since the operation's timeout had not ended.
func (e *TransportError) Error() string {
	msg := fmt.Sprintf("%s %s: after %d attempt(s): %v", e.Method, e.Path, e.Attempts, e.Err)
	if e.AttemptTimeout > 0 && errors.Is(e.Err, context.DeadlineExceeded) {
		msg += fmt.Sprintf(" (no answer within the %s each attempt waits)", e.AttemptTimeout)
	}
	return msg
}

func (e *TransportError) Unwrap() error { return e.Err }

// IsQuotaExceeded reports whether err is (or wraps) the 402 QuotaExceed
// answer, the spec's only 402: a collection create over the account's quota.
func IsQuotaExceeded(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.StatusCode == http.StatusPaymentRequired
}

// maxErrorText bounds the text of a non-JSON error body kept in an APIError.
const maxErrorText = 300

// parseError builds the typed error of a non-2xx response.
func parseError(method, path string, resp *http.Response, body []byte) error {
	ae := &APIError{
		StatusCode: resp.StatusCode,
		Method:     method,
		Path:       path,
		RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After")),
		CapReason:  resp.Header.Get(apitypes.HeaderCapReason),
	}
	if resp.StatusCode == http.StatusForbidden {
		var mc apitypes.MonthlyCapBody
		if json.Unmarshal(body, &mc) == nil && mc.Code == apitypes.CodeMonthlyCap {
			ae.ErrorName = mc.Code
			me := &MonthlyCapError{UpgradeURL: mc.UpgradeURL, api: ae}
			if t, err := time.Parse(time.RFC3339, mc.ResetAt); err == nil {
				me.ResetAt = t
			}
			ae.ErrorMessage = "reset_at " + mc.ResetAt
			return me
		}
	}
	var eb apitypes.ErrorBody
	if json.Unmarshal(body, &eb) == nil && (eb.ErrorName != "" || eb.ErrorMessage != nil) {
		ae.ErrorName = eb.ErrorName
		if eb.ErrorMessage != nil {
			ae.ErrorMessage = *eb.ErrorMessage
		}
		return ae
	}
	// Not our JSON shape (a proxy's HTML page, plain text): keep its start so
	// the user still sees what came back.
	ae.ErrorMessage = truncate(strings.Join(strings.Fields(string(body)), " "), maxErrorText)
	return ae
}

// parseRetryAfter reads Retry-After as seconds or as an HTTP date.
func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…(truncated)"
}
