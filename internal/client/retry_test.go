package client

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

func strp(s string) *string { return &s }

// TestTypedErrorsNotRetried: 4xx answers (and a POST's 5xx) come back as typed
// values after exactly one request.
func TestTypedErrorsNotRetried(t *testing.T) {
	cases := []struct {
		name     string
		status   int
		body     string
		ctype    string
		call     func(*Client) error
		wantText string
		check    func(*testing.T, error)
	}{
		{
			name: "400 invalid body", status: 400,
			body: `{"errorName":"Bad Request","errorMessage":"curationPref.range: startSec must be less than endSec"}`,
			call: func(c *Client) error {
				_, err := c.CreateProject(context.Background(), apitypes.CreateProjectRequest{VideoURL: "u"})
				return err
			},
			wantText: "POST /api/clip-projects: 400 Bad Request: curationPref.range: startSec must be less than endSec",
		},
		{
			name: "401 bad key", status: 401, body: `{"errorName":"Unauthorized","errorMessage":"invalid API key"}`,
			call:     func(c *Client) error { _, err := c.GetProject(context.Background(), "p1"); return err },
			wantText: "GET /api/clip-projects/p1: 401 Unauthorized: invalid API key",
		},
		{
			name: "404 missing", status: 404, body: `{"errorName":"Not Found","errorMessage":null}`,
			call:     func(c *Client) error { _, err := c.GetProject(context.Background(), "nope"); return err },
			wantText: "404 Not Found",
			check: func(t *testing.T, err error) {
				if !IsNotFound(err) || IsQuotaExceeded(err) {
					t.Errorf("IsNotFound(%v) = false, or IsQuotaExceeded true", err)
				}
			},
		},
		{
			name: "402 quota", status: 402, body: `{"errorName":"QuotaExceed","errorMessage":"collection quota used up"}`,
			call:     func(c *Client) error { _, err := c.CreateCollection(context.Background(), "x"); return err },
			wantText: "402 Payment Required: QuotaExceed: collection quota used up",
			check: func(t *testing.T, err error) {
				var ae *APIError
				if !errors.As(err, &ae) || ae.ErrorName != "QuotaExceed" || ae.StatusCode != 402 {
					t.Errorf("want APIError QuotaExceed, got %#v", err)
				}
				if !IsQuotaExceeded(err) || IsNotFound(err) {
					t.Errorf("IsQuotaExceeded(%v) = false, or IsNotFound true", err)
				}
			},
		},
		{
			name: "403 monthly cap", status: 403,
			body: `{"code":"API_MONTHLY_CAP_REACHED","reset_at":"2030-02-01T00:00:00Z","upgrade_url":"https://svc.test/upgrade"}`,
			call: func(c *Client) error {
				_, err := c.CreateProject(context.Background(), apitypes.CreateProjectRequest{VideoURL: "u"})
				return err
			},
			wantText: "reset_at=2030-02-01T00:00:00Z",
			check: func(t *testing.T, err error) {
				var mc *MonthlyCapError
				if !errors.As(err, &mc) {
					t.Fatalf("want MonthlyCapError, got %T %v", err, err)
				}
				if !mc.ResetAt.Equal(time.Date(2030, 2, 1, 0, 0, 0, 0, time.UTC)) || mc.UpgradeURL != "https://svc.test/upgrade" {
					t.Errorf("cap fields: %+v", mc)
				}
				if !strings.Contains(err.Error(), "upgrade_url=https://svc.test/upgrade") {
					t.Errorf("error does not name upgrade_url: %v", err)
				}
				var ae *APIError
				if !errors.As(err, &ae) || ae.StatusCode != 403 {
					t.Errorf("monthly cap is not also an APIError 403: %v", err)
				}
			},
		},
		{
			name: "403 monthly cap on GET", status: 403,
			body:     `{"code":"API_MONTHLY_CAP_REACHED","reset_at":"2030-02-01T00:00:00Z","upgrade_url":"https://svc.test/upgrade"}`,
			call:     func(c *Client) error { _, err := c.GetProject(context.Background(), "p1"); return err },
			wantText: "monthly API cap reached",
		},
		{
			name: "500 on POST", status: 500, body: `{"errorName":"Internal","errorMessage":"boom"}`,
			call: func(c *Client) error {
				_, err := c.CreateProject(context.Background(), apitypes.CreateProjectRequest{VideoURL: "u"})
				return err
			},
			wantText: "500 Internal Server Error: Internal: boom",
		},
		{
			name: "non-JSON 502 on POST", status: 502, ctype: "text/html",
			body: "<html>\n<body>upstream   unavailable</body></html>",
			call: func(c *Client) error {
				_, err := c.CreateProject(context.Background(), apitypes.CreateProjectRequest{VideoURL: "u"})
				return err
			},
			wantText: "502 Bad Gateway: <html> <body>upstream unavailable</body></html>",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hits := &counter{}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.inc("all")
				ct := tc.ctype
				if ct == "" {
					ct = "application/json"
				}
				w.Header().Set("Content-Type", ct)
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			c := newTestClient(t, srv.URL, nil)
			err := tc.call(c)
			if err == nil || !strings.Contains(err.Error(), tc.wantText) {
				t.Fatalf("error = %v, want it to contain %q", err, tc.wantText)
			}
			if n := hits.get("all"); n != 1 {
				t.Errorf("server saw %d requests, want exactly 1", n)
			}
			if tc.check != nil {
				tc.check(t, err)
			}
		})
	}
}

func TestRetryAfter429(t *testing.T) {
	hits := &counter{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.inc("all") == 1 {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 429, apitypes.ErrorBody{ErrorName: "TooManyRequests", ErrorMessage: strp("slow down")})
			return
		}
		writeJSON(w, 200, apitypes.Project{ID: "p1", Stage: apitypes.StageRender})
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, nil)
	p, err := c.GetProject(context.Background(), "p1")
	if err != nil || p.Stage != apitypes.StageRender {
		t.Fatalf("GetProject after 429: %v %+v", err, p)
	}
	st := c.Stats()
	if hits.get("all") != 2 || st.RateLimited429 != 1 || st.Retries != 1 || st.Requests != 2 {
		t.Fatalf("hits %d stats %+v", hits.get("all"), st)
	}
}

// A plain 429 is safe to retry even for a POST: the request was refused.
func TestPost429WithoutRetryAfterRetried(t *testing.T) {
	hits := &counter{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.inc("all") <= 2 {
			writeJSON(w, 429, apitypes.ErrorBody{ErrorName: "TooManyRequests"})
			return
		}
		writeJSON(w, 200, map[string]any{"data": apitypes.Collection{CollectionID: "c9"}})
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, nil)
	col, err := c.CreateCollection(context.Background(), "x")
	if err != nil || col.CollectionID != "c9" {
		t.Fatalf("CreateCollection: %v", err)
	}
	if hits.get("all") != 3 || c.Stats().RateLimited429 != 2 {
		t.Fatalf("hits %d stats %+v", hits.get("all"), c.Stats())
	}
}

func TestPlain429GivesUpAfterBound(t *testing.T) {
	hits := &counter{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.inc("all")
		writeJSON(w, 429, apitypes.ErrorBody{ErrorName: "TooManyRequests"})
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, nil)
	_, err := c.GetProject(context.Background(), "p1")
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != 429 {
		t.Fatalf("want 429 APIError, got %v", err)
	}
	if want := fastPolicy.max429 + 1; hits.get("all") != want {
		t.Fatalf("server saw %d requests, want %d", hits.get("all"), want)
	}
}

func TestConcurrentCapCreateRetriedUntilAccepted(t *testing.T) {
	hits := &counter{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.inc("all") <= 4 {
			w.Header().Set(apitypes.HeaderCapReason, apitypes.CapReasonConcurrent)
			writeJSON(w, 429, apitypes.ErrorBody{ErrorName: "TooManyRequests", ErrorMessage: strp("too many running projects")})
			return
		}
		writeJSON(w, 201, apitypes.Project{ID: "p5", Stage: apitypes.StageQueued})
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, nil)
	p, err := c.CreateProject(context.Background(), apitypes.CreateProjectRequest{VideoURL: "u"})
	if err != nil || p.ID != "p5" {
		t.Fatalf("CreateProject: %v", err)
	}
	st := c.Stats()
	if hits.get("all") != 5 || st.Concurrent429 != 4 || st.RateLimited429 != 4 || st.Retries != 4 {
		t.Fatalf("hits %d stats %+v", hits.get("all"), st)
	}
}

func TestConcurrentCapStopsWithContext(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(apitypes.HeaderCapReason, apitypes.CapReasonConcurrent)
		writeJSON(w, 429, apitypes.ErrorBody{ErrorName: "TooManyRequests"})
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := c.CreateProject(ctx, apitypes.CreateProjectRequest{VideoURL: "u"})
	var ae *APIError
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &ae) || ae.CapReason != apitypes.CapReasonConcurrent {
		t.Fatalf("want deadline error carrying the concurrent 429, got %v", err)
	}
}

func TestGetRetriedOn5xx(t *testing.T) {
	hits := &counter{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch hits.inc("all") {
		case 1:
			// Close after answering, so the next request dials afresh and
			// the transport's own replay of reused connections stays out.
			w.Header().Set("Connection", "close")
			writeJSON(w, 503, apitypes.ErrorBody{ErrorName: "Unavailable"})
		case 2:
			dropConnection(t, w)
		default:
			writeJSON(w, 200, apitypes.Project{ID: "p1", Stage: apitypes.StageCurate})
		}
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, nil)
	p, err := c.GetProject(context.Background(), "p1")
	if err != nil || p.Stage != apitypes.StageCurate {
		t.Fatalf("GetProject: %v", err)
	}
	if hits.get("all") != 3 || c.Stats().Retries != 2 {
		t.Fatalf("hits %d stats %+v", hits.get("all"), c.Stats())
	}
}

func TestGetGivesUpAfterMaxAttempts(t *testing.T) {
	hits := &counter{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.inc("all")
		writeJSON(w, 500, apitypes.ErrorBody{ErrorName: "Internal"})
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, nil)
	err := c.DeleteCollection(context.Background(), "c1")
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != 500 {
		t.Fatalf("want 500 APIError, got %v", err)
	}
	if hits.get("all") != fastPolicy.maxAttempts {
		t.Fatalf("server saw %d requests, want %d", hits.get("all"), fastPolicy.maxAttempts)
	}
}

// The server read the POST and then the connection died: it may have acted,
// so the client must not send it again.
func TestPostNotRetriedAfterResetMidRequest(t *testing.T) {
	hits := &counter{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.inc("all")
		_, _ = io.Copy(io.Discard, r.Body)
		dropConnection(t, w)
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, nil)
	_, err := c.CreateProject(context.Background(), apitypes.CreateProjectRequest{VideoURL: "u"})
	if err == nil {
		t.Fatal("want an error")
	}
	if hits.get("all") != 1 || c.Stats().Retries != 0 {
		t.Fatalf("POST sent %d times (stats %+v), want once", hits.get("all"), c.Stats())
	}
}

// A refused connection never reached a server, so a POST is retried.
func TestPostRetriedWhenConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	c := newTestClient(t, "http://"+addr, nil)
	_, err = c.CreateCollection(context.Background(), "x")
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("want ECONNREFUSED, got %v", err)
	}
	if st := c.Stats(); st.Requests != int64(fastPolicy.maxAttempts) || st.Retries != int64(fastPolicy.maxAttempts-1) {
		t.Fatalf("stats %+v, want %d attempts", st, fastPolicy.maxAttempts)
	}
}

func TestNotSentClassification(t *testing.T) {
	if !notSent(&net.OpError{Op: "dial", Err: errors.New("no route")}) {
		t.Error("dial OpError not treated as not sent")
	}
	if notSent(&net.OpError{Op: "read", Err: syscall.ECONNRESET}) {
		t.Error("read reset treated as not sent")
	}
	if notSent(context.DeadlineExceeded) {
		t.Error("timeout treated as not sent")
	}
}

func TestBackoffBounds(t *testing.T) {
	for n := 1; n <= 10; n++ {
		d := backoff(n, time.Second, 8*time.Second)
		hi := min(time.Second<<(n-1), 8*time.Second)
		if d < hi/2 || d > hi {
			t.Errorf("backoff(%d) = %v, want within [%v, %v]", n, d, hi/2, hi)
		}
	}
	if d := parseRetryAfter("7"); d != 7*time.Second {
		t.Errorf("Retry-After 7 = %v", d)
	}
	if d := parseRetryAfter(time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)); d < 59*time.Minute {
		t.Errorf("Retry-After date = %v", d)
	}
}

// A create refused by the concurrent cap does not sleep out its backoff when a
// wait in the same process sees a project of the key finish: it retries at
// once. The backoff here is an hour, so only the wake-up can let it through.
// A second finish with nobody waiting wakes nothing and is not remembered.
func TestConcurrentCapRetryWakesWhenAProjectFinishes(t *testing.T) {
	// In a bubble the hour of backoff would pass in no time: the logical
	// time the create took shows it did not sleep it out.
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var running atomic.Bool
		running.Store(true)
		var creates atomic.Int32
		service := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.Method == http.MethodGet:
				stage := apitypes.StageRender
				if !running.Load() {
					stage = apitypes.StageComplete
				}
				writeJSON(w, 200, apitypes.Project{ID: "p1", Stage: stage})
			case creates.Add(1) == 1 || running.Load():
				w.Header().Set(apitypes.HeaderCapReason, apitypes.CapReasonConcurrent)
				writeJSON(w, 429, apitypes.ErrorBody{ErrorName: "TooManyRequests"})
			default:
				writeJSON(w, 201, apitypes.Project{ID: "p2", Stage: apitypes.StageQueued})
			}
		})
		c := newTestClient(t, "http://clipperd.test", func(cfg *Config) { cfg.HTTPClient = inProcess(service) })
		c.policy.capBase, c.policy.capMax = time.Hour, time.Hour

		created := make(chan error, 1)
		go func() {
			_, err := c.CreateProject(t.Context(), apitypes.CreateProjectRequest{VideoURL: "u"})
			created <- err
		}()
		if synctest.Wait(); !c.slots.hasRefusedWaiters() {
			t.Fatal("the create was not refused and waiting")
		}
		running.Store(false)
		if _, err := c.WaitForProject(t.Context(), "p1", WaitOptions{PollInterval: time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		if err := <-created; err != nil {
			t.Fatalf("create after a slot freed: %v", err)
		}
		if n := creates.Load(); n != 2 {
			t.Fatalf("server saw %d creates, want the refused one and the retry", n)
		}
		if took := time.Since(start); took >= time.Hour {
			t.Fatalf("the retry came after %v: it slept out its backoff", took)
		}
	})
}
