package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// The errors call ends with, by how it ends: decide says which, call words it.
func TestCallErrorTexts(t *testing.T) {
	unavailable := func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 503, apitypes.ErrorBody{ErrorName: "Unavailable"})
	}
	refused := refusedURL(t)

	cases := []struct {
		name     string
		handler  http.HandlerFunc // nil: nothing listens
		policy   func(*retryPolicy)
		ctx      func() (context.Context, context.CancelFunc)
		want     string // the whole error text, or its start when it ends in "…"
		wantIs   error
		requests int64
	}{
		{
			name: "5xx attempts used up: the last answer as is", handler: unavailable,
			want:     "GET /api/clip-projects/p1: 503 Service Unavailable: Unavailable",
			requests: int64(fastPolicy.maxAttempts),
		},
		{
			name: "network errors used up: with the attempts it took",
			want: "GET /api/clip-projects/p1: after 5 attempt(s): Get …", wantIs: syscall.ECONNREFUSED,
			requests: int64(fastPolicy.maxAttempts),
		},
		{
			name: "ctx ends in the backoff: the answer that made it wait, then why it stopped", handler: unavailable,
			policy: func(p *retryPolicy) { p.base, p.max = time.Hour, time.Hour },
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 50*time.Millisecond)
			},
			want:   "GET /api/clip-projects/p1: 503 Service Unavailable: Unavailable; stopped retrying: context deadline exceeded",
			wantIs: context.DeadlineExceeded, requests: 1,
		},
		{
			name: "ctx ended before the first answer: the transport's error",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				t.Error("a request with an ended ctx reached the server")
			},
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx, cancel
			},
			want: "GET /api/clip-projects/p1: Get …", wantIs: context.Canceled, requests: 1,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := refused
			if tc.handler != nil {
				srv := httptest.NewServer(tc.handler)
				defer srv.Close()
				base = srv.URL
			}
			c := newTestClient(t, base, nil)
			if tc.policy != nil {
				tc.policy(&c.policy)
			}
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if tc.ctx != nil {
				ctx, cancel = tc.ctx()
			}
			defer cancel()
			_, err := c.GetProject(ctx, "p1")
			if err == nil {
				t.Fatal("want an error")
			}
			if !matchesText(err.Error(), tc.want) {
				t.Errorf("error = %q, want %q", err, tc.want)
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("error %v does not wrap %v", err, tc.wantIs)
			}
			if got := c.Stats().Requests; got != tc.requests {
				t.Errorf("sent %d requests, want %d", got, tc.requests)
			}
		})
	}
}

// matchesText reports whether got is want, or starts with want's text before
// a closing "…".
func matchesText(got, want string) bool {
	if prefix, open := strings.CutSuffix(want, "…"); open {
		return strings.HasPrefix(got, prefix)
	}
	return got == want
}

// A concurrent-cap refusal is logged with the refusals so far and the wait.
func TestConcurrentCapRetryLogged(t *testing.T) {
	hits := &counter{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.inc("all") <= 2 {
			w.Header().Set(apitypes.HeaderCapReason, apitypes.CapReasonConcurrent)
			writeJSON(w, 429, apitypes.ErrorBody{ErrorName: "TooManyRequests"})
			return
		}
		writeJSON(w, 201, apitypes.Project{ID: "p1", Stage: apitypes.StageQueued})
	}))
	defer srv.Close()
	logger := &captureLogger{}
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.Logger = logger })
	if _, err := c.CreateProject(context.Background(), apitypes.CreateProjectRequest{VideoURL: "u"}); err != nil {
		t.Fatal(err)
	}
	out := logger.text()
	for _, want := range []string{
		"DEBUG clipper concurrent project cap reached; retrying map[method:POST path:/api/clip-projects refusals:1 wait_ms:",
		"DEBUG clipper concurrent project cap reached; retrying map[method:POST path:/api/clip-projects refusals:2 wait_ms:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}
