package client

import (
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestWindowGate(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	var g windowGate
	// Knowing nothing, one request goes: the probe.
	if ok, _, _ := g.enter(now); !ok {
		t.Fatal("the first request must go")
	}
	ok, changed, _ := g.enter(now)
	if ok || changed == nil {
		t.Fatal("a second request went beside the probe")
	}
	// Refused: still one at a time.
	g.answered(http.StatusTooManyRequests, 0, time.Time{})
	select {
	case <-changed:
	default:
		t.Fatal("the answer did not wake the waiters")
	}
	if ok, _, _ := g.enter(now); !ok {
		t.Fatal("after a 429 the next probe must go")
	}
	if ok, _, _ := g.enter(now); ok {
		t.Fatal("after a 429 two requests went at once")
	}
	// Room for 3 more: three go at once, the fourth waits.
	g.answered(http.StatusOK, 3, now.Add(time.Minute))
	for i := range 3 {
		if ok, _, _ := g.enter(now); !ok {
			t.Fatalf("request %d of the 3 the service has room for was held", i+1)
		}
	}
	if ok, _, _ := g.enter(now); ok {
		t.Fatal("a fourth request went where the service said three")
	}
	// The last slot taken: nothing goes before the window frees one, then one.
	reset := now.Add(20 * time.Second)
	g.answered(http.StatusOK, 0, reset)
	g.answered(0, -1, time.Time{}) // no answer: says nothing
	g.answered(0, -1, time.Time{})
	if ok, _, retry := g.enter(now); ok || retry != 20*time.Second {
		t.Fatalf("with no room left: ok %t, retry %s; want to wait 20s", ok, retry)
	}
	if ok, _, _ := g.enter(reset); !ok {
		t.Fatal("at the reset the next probe must go")
	}
	if ok, _, _ := g.enter(reset); ok {
		t.Fatal("at the reset two requests went: how many slots freed is not known")
	}
	// Answers come in any order: an older one saying more room does not
	// raise what the probe's answer allowed.
	g.answered(http.StatusOK, 2, reset.Add(time.Minute))
	g.enter(reset)
	g.answered(http.StatusOK, 9, reset.Add(time.Minute))
	if ok, _, _ := g.enter(reset); !ok {
		t.Fatal("the second of the 2 requests allowed was held")
	}
	if ok, _, _ := g.enter(reset); ok {
		t.Fatal("a late answer saying 9 raised the 2 the probe's answer allowed")
	}
	// A service that says nothing of its window: open once answered.
	var quiet windowGate
	quiet.enter(now)
	quiet.answered(http.StatusOK, -1, time.Time{})
	for i := range 10 {
		if ok, _, _ := quiet.enter(now); !ok {
			t.Fatalf("request %d held by a service that said nothing of its window", i+1)
		}
	}
}

// A window filled by another process (the apply before a plan): ten reads
// sent at once cost one refused request, not ten.
func TestFullWindowCostsOneRefusal(t *testing.T) {
	// In a bubble the window opens at an exact logical time, so the count
	// is exact: the probe is refused once, then it and the nine it held go.
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		opens := start.Add(1500 * time.Millisecond)
		var calls, refused atomic.Int32
		service := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			if wait := time.Until(opens); wait > 0 {
				refused.Add(1)
				w.Header().Set("Retry-After", strconv.Itoa(int(wait/time.Second)+1))
				w.Header().Set("X-RateLimit-Remaining", "0")
				writeJSON(w, http.StatusTooManyRequests, map[string]any{"errorName": "TooManyRequests", "errorMessage": "slow down"})
				return
			}
			w.Header().Set("X-RateLimit-Remaining", "20")
			writeJSON(w, http.StatusOK, map[string]any{"id": "p1", "projectId": "p1", "stage": "COMPLETE"})
		})
		c := newTestClient(t, "http://clipperd.test", func(cfg *Config) { cfg.HTTPClient = inProcess(service) })
		var wg sync.WaitGroup
		errs := make(chan error, 10)
		for range 10 {
			wg.Go(func() {
				if _, err := c.GetProject(t.Context(), "p1"); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if calls.Load() != 11 || refused.Load() != 1 {
			t.Fatalf("10 reads into a full window made %d calls, %d refused; want 11 and 1", calls.Load(), refused.Load())
		}
		if took := time.Since(start); took != 2*time.Second {
			t.Fatalf("the reads took %v; want the 2 s the refusal's Retry-After said", took)
		}
	})
}
