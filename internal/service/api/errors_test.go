package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/upload"
)

// TestFail maps every kind of error to its answer, wrapped as handlers pass
// them on.
func TestFail(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		err     error
		status  int
		errName string
		msg     string
		header  map[string]string
	}{
		{"field", fmt.Errorf("decode: %w", badField("video.usecase", "is required")),
			http.StatusBadRequest, errBadRequest, "video.usecase: is required", nil},
		{"upload request", fmt.Errorf("put: %w", &upload.RequestError{Field: "Content-Range", Rule: "resume at byte 4"}),
			http.StatusBadRequest, errBadRequest, "Content-Range: resume at byte 4", nil},
		{"named miss", about("project", "p1", store.ErrNotFound),
			http.StatusNotFound, errNotFound, `project "p1" not found`, nil},
		{"miss of an upload session", fmt.Errorf(`upload session "ses_x" %w`, upload.ErrNotFound),
			http.StatusNotFound, errNotFound, `upload session "ses_x" not found`, nil},
		{"unnamed miss", fmt.Errorf("lookup: %w", store.ErrNotFound),
			http.StatusNotFound, errNotFound, "not found", nil},
		{"no key", &authError{msg: "invalid API key"},
			http.StatusUnauthorized, errUnauthorized, "invalid API key", nil},
		{"another org", &authError{forbidden: true, msg: "x-svc-org-id: not yours"},
			http.StatusForbidden, errForbidden, "x-svc-org-id: not yours", nil},
		{"wrong method", &methodError{method: "DELETE", path: "/api/x", allow: "GET, HEAD"},
			http.StatusMethodNotAllowed, errMethod, "method DELETE is not allowed on /api/x; allowed: GET, HEAD", nil},
		{"complete upload", fmt.Errorf("upload up_1 is %w; create a new upload link", upload.ErrComplete),
			http.StatusConflict, errConflict, "upload up_1 is already complete; create a new upload link", nil},
		{"collection quota", fmt.Errorf("create: %w", store.ErrCollectionQuota),
			http.StatusPaymentRequired, errQuota, "collection quota of 7 collections per organization reached", nil},
		{"rate limit", errRateLimited,
			http.StatusTooManyRequests, errTooMany, "rate limit of 5 requests per minute per API key exceeded", nil},
		{"concurrent cap", fmt.Errorf("admit: %w", store.ErrConcurrentCap),
			http.StatusTooManyRequests, errTooMany, "concurrent project limit of 2 projects in flight reached",
			map[string]string{apitypes.HeaderCapReason: apitypes.CapReasonConcurrent, "Retry-After": "15"}},
		{"anything else", about("collection", "c1", errors.New("disk I/O error")),
			http.StatusInternalServerError, errInternal, "internal error; see the server log", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, logs := failAPI()
			rec := httptest.NewRecorder()
			a.fail(rec, httptest.NewRequest(http.MethodGet, "/api/x", nil), c.err)
			var body apitypes.ErrorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatalf("body %q: %v", rec.Body, err)
			}
			if rec.Code != c.status || body.ErrorName != c.errName || body.ErrorMessage == nil || !strings.HasPrefix(*body.ErrorMessage, c.msg) {
				t.Errorf("answer %d %s, want %d %s %q", rec.Code, rec.Body, c.status, c.errName, c.msg)
			}
			for k, v := range c.header {
				if got := rec.Header().Get(k); got != v {
					t.Errorf("header %s %q, want %q", k, got, v)
				}
			}
			// Only a 500 is logged, with the details the caller does not see.
			internal := c.status == http.StatusInternalServerError
			if logged := logs.String(); internal != strings.Contains(logged, "request failed") ||
				internal && !strings.Contains(logged, "disk I/O error") {
				t.Errorf("log %q for a %d", logged, c.status)
			}
		})
	}
}

// TestFailMonthlyCap: the monthly cap is the spec's own 403 body, not the
// common error body.
func TestFailMonthlyCap(t *testing.T) {
	t.Parallel()
	a, _ := failAPI()
	rec := httptest.NewRecorder()
	reset := time.Date(2030, 2, 1, 0, 0, 0, 0, time.UTC)
	a.fail(rec, httptest.NewRequest(http.MethodPost, "/api/clip-projects", nil),
		fmt.Errorf("admit: %w", &quota.MonthlyCapError{Used: 900, Needed: 10, Cap: 900, ResetAt: reset}))
	var body apitypes.MonthlyCapBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	want := apitypes.MonthlyCapBody{Code: apitypes.CodeMonthlyCap, ResetAt: "2030-02-01T00:00:00Z", UpgradeURL: "http://clipperd.test/upgrade"}
	if rec.Code != http.StatusForbidden || body != want {
		t.Errorf("answer %d %+v, want 403 %+v", rec.Code, body, want)
	}
}

// failAPI is an API with the limits TestFail's messages name, logging
// into the returned buffer.
func failAPI() (*API, *bytes.Buffer) {
	var logs bytes.Buffer
	a := newAPI(Config{PublicURL: "http://clipperd.test", Limits: quota.Limits{RateLimit: 5, MaxConcurrent: 2, MaxCollections: 7},
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	return a, &logs
}

func TestAbout(t *testing.T) {
	t.Parallel()
	if err := about("project", "p1", nil); err != nil {
		t.Errorf("about(nil) = %v", err)
	}
	var nf *notFoundError
	if err := about("collection", "c1", store.ErrNotFound); !errors.As(err, &nf) || err.Error() != `collection "c1" not found` {
		t.Errorf("about(miss) = %v", err)
	}
	cause := errors.New("database is locked")
	if err := about("collection", "c1", cause); !errors.Is(err, cause) || err.Error() != `collection "c1": database is locked` {
		t.Errorf("about(failure) = %v", err)
	}
}

func TestUnknownAs(t *testing.T) {
	t.Parallel()
	var fe *fieldError
	if err := unknownAs(store.ErrNotFound, "brandTemplateId", "unknown brand template %q", "t1"); !errors.As(err, &fe) ||
		err.Error() != `brandTemplateId: unknown brand template "t1"` {
		t.Errorf("unknownAs(miss) = %v", err)
	}
	cause := errors.New("database is locked")
	if err := unknownAs(cause, "videoUrl", "unknown"); err != cause {
		t.Errorf("unknownAs(failure) = %v, want it unchanged", err)
	}
}

func TestQueryInts(t *testing.T) {
	t.Parallel()
	ints := queryInts{q: map[string][]string{"a": {"7"}, "b": {"x"}, "c": {"500"}}}
	if got := ints.get("a", 1, 1, 100, "small"); got != 7 || ints.err != nil {
		t.Errorf("a = %d, %v", got, ints.err)
	}
	if got := ints.get("missing", 20, 1, 100, "small"); got != 20 || ints.err != nil {
		t.Errorf("missing = %d, %v; want the default", got, ints.err)
	}
	ints.get("b", 1, 1, 100, "an integer from 1 to 100")
	ints.get("c", 1, 1, 100, "an integer from 1 to 100")
	if ints.err == nil || ints.err.Error() != `b: must be an integer from 1 to 100, not "x"` {
		t.Errorf("err %v, want the first broken parameter's", ints.err)
	}
}
