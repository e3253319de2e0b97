package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

func TestClientsShareOneLimiterPerBaseAndKey(t *testing.T) {
	shared := sharing(new(Shared))
	a := newTestClient(t, "http://svc.test", shared)
	b := newTestClient(t, "http://svc.test/", shared) // trailing slash: same service
	other := newTestClient(t, "http://svc.test", func(c *Config) { shared(c); c.APIKey = testKey(t) + "-other" })
	elsewhere := newTestClient(t, "http://svc2.test", shared)
	if a.limiter != b.limiter {
		t.Fatal("clients with the same base URL and key have different limiters")
	}
	if a.limiter == other.limiter || a.limiter == elsewhere.limiter {
		t.Fatal("clients with a different key or base URL share a limiter")
	}
}

// One client's request fills the shared window, so a second client with the
// same key must wait (and, with a short deadline, is refused at once), while a
// client of another key is not held back.
func TestSharedLimiterHoldsBackSecondClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, apitypes.Project{ID: "p1"})
	}))
	defer srv.Close()
	shared := sharing(new(Shared))
	slow := func(c *Config) { shared(c); c.RequestsPerMinute = 1 }
	a := newTestClient(t, srv.URL, slow)
	b := newTestClient(t, srv.URL, slow)
	other := newTestClient(t, srv.URL, func(c *Config) { slow(c); c.APIKey = testKey(t) + "-other" })

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
	// Endpoints the service does not rate-limit are not held back.
	if _, err := b.ListBrandTemplates(ctx); errors.Is(err, context.DeadlineExceeded) || b.Stats().Requests != 1 {
		t.Fatalf("an unlimited endpoint waited for the limiter: %v", err)
	}
}

// The window keeps any sliding 60 s at or under RequestsPerMinute while
// admitting a burst at once. Checked on virtual time, so nothing sleeps.
func TestLimitKeepsEverySlidingWindowUnderRPM(t *testing.T) {
	for _, rpm := range []int{1, 2, 30, 100} {
		start := time.Unix(1_700_000_000, 0)
		lim := &sharedLimiter{size: rpm}
		var sent []time.Time
		for t0 := time.Duration(0); t0 < 5*time.Minute; t0 += time.Millisecond {
			now := start.Add(t0)
			for lim.admit(now) == 0 { // everything that may go at this instant
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
		// A burst of rpm goes at once...
		if len(sent) < rpm || sent[rpm-1] != start {
			t.Fatalf("rpm %d: the first %d requests were not admitted at once", rpm, rpm)
		}
		// ...and the limit is not needlessly low: over 5 minutes about 5*rpm
		// requests pass (less the one-second margin per window).
		if float64(len(sent)) < 0.9*float64(5*rpm) {
			t.Fatalf("rpm %d: only %d requests in 5 minutes", rpm, len(sent))
		}
	}
}

// A 429's Retry-After holds back every request of the key, limited or not.
func TestPauseHoldsBackEveryEndpoint(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	lim := &sharedLimiter{size: 30, now: func() time.Time { return now }}
	lim.pause(5 * time.Second)
	if d := lim.admit(now); d != 5*time.Second {
		t.Fatalf("admit during a pause: wait %v, want 5s", d)
	}
	if d := lim.admit(now.Add(5 * time.Second)); d != 0 {
		t.Fatalf("admit after the pause: wait %v", d)
	}
}

func TestLowerRateWins(t *testing.T) {
	shared := sharing(new(Shared))
	a := newTestClient(t, "http://svc.test", func(c *Config) { shared(c); c.RequestsPerMinute = 600 })
	newTestClient(t, "http://svc.test", func(c *Config) { shared(c); c.RequestsPerMinute = 61 })
	if got := a.limiter.size; got != 61 {
		t.Fatalf("shared limit %d, want the lower 61", got)
	}
}
