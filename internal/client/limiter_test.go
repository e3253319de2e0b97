package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

func TestClientsShareOneLimiterPerBaseAndKey(t *testing.T) {
	a := newTestClient(t, "http://svc.test", nil)
	b := newTestClient(t, "http://svc.test/", nil) // trailing slash: same service
	other := newTestClient(t, "http://svc.test", func(c *Config) { c.APIKey = testKey(t) + "-other" })
	elsewhere := newTestClient(t, "http://svc2.test", nil)
	if a.limiter != b.limiter {
		t.Fatal("clients with the same base URL and key have different limiters")
	}
	if a.limiter == other.limiter || a.limiter == elsewhere.limiter {
		t.Fatal("clients with a different key or base URL share a limiter")
	}
}

// One client's request uses the shared token, so a second client with the same
// key must wait (and, with a short deadline, is refused at once), while a
// client of another key is not held back.
func TestSharedLimiterHoldsBackSecondClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, apitypes.Project{ID: "p1"})
	}))
	defer srv.Close()
	slow := func(c *Config) { c.RequestsPerMinute = 2 } // one token per 60 s
	a := newTestClient(t, srv.URL, slow)
	b := newTestClient(t, srv.URL, slow)
	other := newTestClient(t, srv.URL, func(c *Config) { c.RequestsPerMinute = 2; c.APIKey = testKey(t) + "-other" })

	if _, err := a.GetProject(context.Background(), "p1"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := b.GetProject(ctx, "p1"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second client of the same key was not held back: %v", err)
	}
	if b.Stats().Requests != 0 {
		t.Fatalf("second client sent %d requests", b.Stats().Requests)
	}
	if _, err := other.GetProject(ctx, "p1"); err != nil {
		t.Fatalf("client of another key was held back: %v", err)
	}
}

// The token rate keeps any sliding 60 s window at or under RequestsPerMinute.
// Checked on virtual time with AllowN, so nothing sleeps.
func TestLimitKeepsEverySlidingWindowUnderRPM(t *testing.T) {
	for _, rpm := range []int{1, 2, 30, 100} {
		lim := rate.NewLimiter(limitFor(rpm), 1)
		start := time.Unix(1_700_000_000, 0)
		var sent []time.Time
		for t0 := time.Duration(0); t0 < 5*time.Minute; t0 += time.Millisecond {
			now := start.Add(t0)
			if lim.AllowN(now, 1) {
				sent = append(sent, now)
			}
		}
		j := 0
		for i := range sent {
			for sent[i].Sub(sent[j]) >= time.Minute {
				j++
			}
			if n := i - j + 1; n > rpm {
				t.Fatalf("rpm %d: %d requests within 60 s ending %v", rpm, n, sent[i].Sub(start))
			}
		}
		// The limit is not needlessly low: over 5 minutes it lets through
		// about 5*(rpm-1) requests (less a little for the 1 ms ticks).
		if float64(len(sent)) < 0.95*float64(5*(rpm-1)) {
			t.Fatalf("rpm %d: only %d requests in 5 minutes", rpm, len(sent))
		}
	}
}

func TestLowerRateWins(t *testing.T) {
	a := newTestClient(t, "http://svc.test", func(c *Config) { c.RequestsPerMinute = 600 })
	newTestClient(t, "http://svc.test", func(c *Config) { c.RequestsPerMinute = 61 })
	if got := a.limiter.lim.Limit(); got != limitFor(61) {
		t.Fatalf("shared limit %v, want the lower %v", got, limitFor(61))
	}
}
