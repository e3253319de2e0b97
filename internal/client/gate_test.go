package client

import (
	"net/http"
	"net/http/httptest"
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
	// The probe's answer says one more may go; then a 429 (another process
	// took the slot): one at a time again.
	g.answered(now, http.StatusOK, 1, now.Add(time.Minute), time.Minute)
	select {
	case <-changed:
	default:
		t.Fatal("the answer did not wake the waiters")
	}
	if ok, _, _ := g.enter(now); !ok {
		t.Fatal("the one request the service said may go was held")
	}
	g.answered(now, http.StatusTooManyRequests, 0, time.Time{}, time.Minute)
	if ok, _, _ := g.enter(now); !ok {
		t.Fatal("after a 429 the next probe must go")
	}
	if ok, _, _ := g.enter(now); ok {
		t.Fatal("after a 429 two requests went at once")
	}
	// Room for 3 more: three go at once, the fourth waits.
	g.answered(now, http.StatusOK, 3, now.Add(time.Minute), time.Minute)
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
	g.answered(now, http.StatusOK, 0, reset, time.Minute)
	g.answered(now, 0, -1, time.Time{}, time.Minute) // no answer: says nothing
	g.answered(now, 0, -1, time.Time{}, time.Minute)
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
	g.answered(now, http.StatusOK, 2, reset.Add(time.Minute), time.Minute)
	g.enter(reset)
	g.answered(now, http.StatusOK, 9, reset.Add(time.Minute), time.Minute)
	if ok, _, _ := g.enter(reset); !ok {
		t.Fatal("the second of the 2 requests allowed was held")
	}
	if ok, _, _ := g.enter(reset); ok {
		t.Fatal("a late answer saying 9 raised the 2 the probe's answer allowed")
	}
}

// A service that sends its window's headers only with its 429s: one request
// at a time while it says nothing; after a 429, nothing for a whole window,
// then every request the process's own log admits.
func TestWindowGateWhenTheServiceSaysNothing(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	var g windowGate
	for i := range 3 {
		if ok, _, _ := g.enter(now); !ok {
			t.Fatalf("probe %d was held", i+1)
		}
		if ok, _, _ := g.enter(now); ok {
			t.Fatalf("a request went beside probe %d of a service that says nothing of its window", i+1)
		}
		g.answered(now, http.StatusOK, -1, time.Time{}, time.Minute)
	}
	g.enter(now)
	g.answered(now, http.StatusTooManyRequests, 0, now.Add(2*time.Second), time.Minute)
	// One probe (it waits out the Retry-After in the limiter); its answer
	// says nothing of the window, so the rest wait for the whole window.
	if ok, _, _ := g.enter(now); !ok {
		t.Fatal("the probe after the 429 was held")
	}
	g.answered(now.Add(2*time.Second), http.StatusOK, -1, time.Time{}, time.Minute)
	for _, at := range []time.Duration{2 * time.Second, 59 * time.Second} {
		if ok, _, retry := g.enter(now.Add(at)); ok || retry != time.Minute-at {
			t.Fatalf("%s after the 429: ok %t, retry %s; want to wait for the whole window", at, ok, retry)
		}
	}
	owned := now.Add(time.Minute)
	for i := range 10 {
		if ok, _, _ := g.enter(owned); !ok {
			t.Fatalf("request %d held after the window the 429 filled had passed", i+1)
		}
	}
	// A 429, then a probe whose answer says the window: the hold ends and
	// the answer's room goes at once.
	g.answered(owned, http.StatusTooManyRequests, 0, time.Time{}, time.Minute)
	for range 9 {
		g.answered(owned, 0, -1, time.Time{}, time.Minute)
	}
	if ok, _, _ := g.enter(owned); !ok {
		t.Fatal("the probe after the second 429 was held")
	}
	g.answered(owned, http.StatusOK, 2, owned.Add(time.Minute), time.Minute)
	for i := range 2 {
		if ok, _, _ := g.enter(owned); !ok {
			t.Fatalf("request %d of the 2 the probe's answer allowed was held", i+1)
		}
	}
	g.answered(owned, 0, -1, time.Time{}, time.Minute)
	g.answered(owned, 0, -1, time.Time{}, time.Minute)
	// Once the service has said its window in an ordinary answer, a 429
	// holds nothing beyond its Retry-After (the limiter's pause).
	g.answered(owned, http.StatusOK, 5, owned.Add(time.Minute), time.Minute)
	g.answered(owned, http.StatusTooManyRequests, 0, time.Time{}, time.Minute)
	for range 9 {
		g.answered(owned, 0, -1, time.Time{}, time.Minute)
	}
	if ok, _, _ := g.enter(owned); !ok {
		t.Fatal("a service that said its window: the probe after a 429 was held for a window")
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
		readTenAtOnce(t, c)
		if calls.Load() != 11 || refused.Load() != 1 {
			t.Fatalf("10 reads into a full window made %d calls, %d refused; want 11 and 1", calls.Load(), refused.Load())
		}
		if took := time.Since(start); took != 2*time.Second {
			t.Fatalf("the reads took %v; want the 2 s the refusal's Retry-After said", took)
		}
	})
}

// A service that says its window only in its 429s, whose window another
// process filled (the apply before a plan): ten reads sent at once cost one
// refused request, and none after it: the Retry-After frees one slot, not
// the window. The service counts 5 requests per 2 s and the client, told 5
// a window, counts over 3 s (the minute and its margin, shortened).
func TestFullQuietWindowCostsOneRefusal(t *testing.T) {
	const limit, window = 5, 2 * time.Second
	var (
		mu      sync.Mutex
		sent    []time.Time
		filled  bool
		calls   int
		refused int
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		now := time.Now()
		if !filled { // the other process's requests: one a while ago, the rest just before the first of ours
			filled = true
			sent = append(sent, now.Add(-window+500*time.Millisecond))
			for range limit - 1 {
				sent = append(sent, now)
			}
		}
		for len(sent) > 0 && now.Sub(sent[0]) >= window {
			sent = sent[1:]
		}
		calls++
		if len(sent) >= limit {
			refused++
			wait := sent[0].Add(window).Sub(now)
			mu.Unlock()
			w.Header().Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
			w.Header().Set("X-RateLimit-Remaining", "0")
			quietJSON(w, http.StatusTooManyRequests, map[string]any{"errorName": "TooManyRequests", "errorMessage": "slow down"})
			return
		}
		sent = append(sent, now)
		mu.Unlock()
		quietJSON(w, http.StatusOK, map[string]any{"id": "p1", "projectId": "p1", "stage": "COMPLETE"})
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.RequestsPerMinute = limit })
	c.limiter.window = window + time.Second
	readTenAtOnce(t, c)
	mu.Lock()
	defer mu.Unlock()
	if calls > 11 || refused > 1 {
		t.Fatalf("10 reads into a full window made %d calls, %d refused; want at most 11 and 1", calls, refused)
	}
}

// readTenAtOnce reads project p1 ten times at once, as Terraform refreshes
// ten resources, and fails on any error.
func readTenAtOnce(t *testing.T, c *Client) {
	t.Helper()
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
}
