package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/upload"
)

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

// notFoundError is a resource the request names that does not exist, or
// that belongs to another org, which is told the same way. It becomes a 404.
type notFoundError struct{ msg string }

func (e *notFoundError) Error() string { return e.msg }

func notFound(what string) error { return &notFoundError{msg: what + " not found"} }

// about names the resource a store call was about: a miss becomes
// `collection "c1" not found`, and any other failure carries the name into
// the log.
func about(kind, id string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrNotFound):
		return notFound(kind + " " + strconv.Quote(id))
	}
	return fmt.Errorf("%s %q: %w", kind, id, err)
}

// unknownAs makes a store miss of something the body names (a brand
// template, an upload) a 400 on that field: the request is wrong, not the
// address it was sent to.
func unknownAs(err error, field, format string, args ...any) error {
	if errors.Is(err, store.ErrNotFound) {
		return badField(field, format, args...)
	}
	return err
}

// authError is a caller the API does not accept: no usable key (401), or a
// key acting for another organization (403: the caller is known, the org is
// not theirs).
type authError struct {
	msg       string
	forbidden bool
}

func (e *authError) Error() string { return e.msg }

// methodError is a request whose path has routes, none for its method.
// The mux has set the Allow header. It becomes a 405.
type methodError struct{ method, path, allow string }

func (e *methodError) Error() string {
	return "method " + e.method + " is not allowed on " + e.path + "; allowed: " + e.allow
}

// errRateLimited is a request over the key's rate limit; the limiter has
// set the Retry-After and X-RateLimit-* headers.
var errRateLimited = errors.New("rate limited")

// errPostRateLimited is a request over the key's limit on the posting
// endpoints, with the same headers.
var errPostRateLimited = errors.New("posting rate limited")

// Error names of the storage answers: a full disk (507) and an org over
// its storage quota (403).
const (
	errFull         = "Insufficient Storage"
	errStorageQuota = "StorageQuotaExceeded"
)

// fullRetryAfter is the Retry-After of a 507: the disk was full, which
// passes when the janitor or an operator frees space, not in seconds.
const fullRetryAfter = 60

// capRetryAfter is the Retry-After of a concurrent-cap 429: a project takes
// at least that long, so asking sooner is wasted.
const capRetryAfter = 15

// fail answers err. It is the one place where errors become HTTP answers:
//
//	*fieldError, *upload.RequestError      400 Bad Request, "field: rule"
//	*notFoundError, upload.ErrNotFound     404 Not Found naming the resource
//	store.ErrNotFound (unnamed)            404 Not Found
//	*authError                             401 Unauthorized or 403 Forbidden
//	*methodError                           405 Method Not Allowed
//	upload.ErrComplete                     409 Conflict
//	store.ErrCollectionQuota               402 QuotaExceed
//	errRateLimited, errPostRateLimited     429 TooManyRequests
//	store.ErrConcurrentCap                 429 with X-Cap-Reason: concurrent
//	*quota.MonthlyCapError                 403 {code: API_MONTHLY_CAP_REACHED}
//	*quota.StorageQuotaError               403 StorageQuotaExceeded naming the quota
//	blob.ErrDamaged (a render cut or altered) 500 naming the file and what to do
//	store.IsFull (SQLITE_FULL, ENOSPC)     507 Insufficient Storage with Retry-After
//	anything else                          500; the details go to the log, not to the caller
//	                                       (a damaged database's also make /healthz a 503)
func (a *API) fail(w http.ResponseWriter, r *http.Request, err error) {
	if status, name, msg, ok := a.refusal(err); ok {
		writeError(w, status, name, msg)
		return
	}
	var capErr *quota.MonthlyCapError
	switch {
	case errors.Is(err, store.ErrConcurrentCap):
		a.throttled(ThrottledConcurrent)
		w.Header().Set(apitypes.HeaderCapReason, apitypes.CapReasonConcurrent)
		w.Header().Set("Retry-After", strconv.Itoa(capRetryAfter))
		writeError(w, http.StatusTooManyRequests, errTooMany,
			"concurrent project limit of "+strconv.Itoa(a.limits.MaxConcurrent)+" projects in flight reached; retry when one finishes")
	case errors.As(err, &capErr):
		a.monthlyCapReached(w, capErr)
	case errors.Is(err, blob.ErrDamaged):
		a.log.Error("damaged media refused", "method", r.Method, "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, errInternal, err.Error()+
			"; it is not served: restore it from a backup (clipperd restore) or run the project again")
	case store.IsFull(err):
		a.log.Error("storage full", "method", r.Method, "path", r.URL.Path, "err", err)
		w.Header().Set("Retry-After", strconv.Itoa(fullRetryAfter))
		writeError(w, http.StatusInsufficientStorage, errFull,
			"the server's storage is full; retry after the Retry-After seconds")
	default:
		if store.IsDamage(err) {
			msg := err.Error()
			a.damage.CompareAndSwap(nil, &msg)
		}
		a.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, errInternal, "internal error; see the server log")
	}
}

// refusal is the status, errorName and errorMessage of an error that is
// answered with the common error body; ok is false for any other.
func (a *API) refusal(err error) (status int, name, msg string, ok bool) {
	var (
		fe *fieldError
		re *upload.RequestError
		nf *notFoundError
		ae *authError
		me *methodError
		sq *quota.StorageQuotaError
	)
	switch {
	case errors.As(err, &fe):
		return http.StatusBadRequest, errBadRequest, fe.Error(), true
	case errors.As(err, &re):
		return http.StatusBadRequest, errBadRequest, re.Error(), true
	case errors.As(err, &nf):
		return http.StatusNotFound, errNotFound, nf.Error(), true
	case errors.Is(err, upload.ErrNotFound):
		return http.StatusNotFound, errNotFound, err.Error(), true
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound, errNotFound, "not found", true
	case errors.As(err, &ae) && ae.forbidden:
		return http.StatusForbidden, errForbidden, ae.msg, true
	case errors.As(err, &ae):
		return http.StatusUnauthorized, errUnauthorized, ae.msg, true
	case errors.As(err, &me):
		return http.StatusMethodNotAllowed, errMethod, me.Error(), true
	case errors.Is(err, upload.ErrComplete):
		return http.StatusConflict, errConflict, err.Error(), true
	case errors.Is(err, store.ErrCollectionQuota):
		return http.StatusPaymentRequired, errQuota, "collection quota of " + strconv.Itoa(a.limits.MaxCollections) +
			" collections per organization reached; delete a collection to create another", true
	case errors.As(err, &sq):
		return http.StatusForbidden, errStorageQuota, sq.Error(), true
	case errors.Is(err, errRateLimited):
		return http.StatusTooManyRequests, errTooMany, "rate limit of " + strconv.Itoa(a.limiter.perMinute) +
			" requests per minute per API key exceeded; retry after the Retry-After seconds", true
	case errors.Is(err, errPostRateLimited):
		return http.StatusTooManyRequests, errTooMany, "rate limit of " + strconv.Itoa(a.postLimiter.perMinute) +
			" requests per minute per API key on post tasks, publish schedules, social copy and censor jobs exceeded" +
			" (--post-rate-limit); retry after the Retry-After seconds", true
	}
	return 0, "", "", false
}

// monthlyCapReached answers the spec's 403: not a 429, so clients do not
// retry in a loop. upgrade_url is {PublicURL}/upgrade, a page of this server
// that says how to raise the cap (a flag on a self-hosted server).
func (a *API) monthlyCapReached(w http.ResponseWriter, e *quota.MonthlyCapError) {
	writeJSON(w, http.StatusForbidden, apitypes.MonthlyCapBody{
		Code:       apitypes.CodeMonthlyCap,
		ResetAt:    e.ResetAt.UTC().Format(time.RFC3339),
		UpgradeURL: a.publicURL + "/upgrade",
	})
}
