package api

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
)

// t0 is a whole second, so the expected header values are exact.
var t0 = time.Unix(1_700_000_000, 0)

type decision struct {
	at      time.Time
	allowed bool
	hdr     map[string]string
}

func decide(l *keyLimiter, key string, at time.Time) decision {
	rec := httptest.NewRecorder()
	ok := l.admit(context.Background(), rec, key, at)
	h := map[string]string{}
	for _, name := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"} {
		h[name] = rec.Header().Get(name)
	}
	return decision{at: at, allowed: ok, hdr: h}
}

// countAllowedIn counts the allowed decisions in [from, from+60s).
func countAllowedIn(ds []decision, from time.Time) int {
	n := 0
	for _, d := range ds {
		if d.allowed && !d.at.Before(from) && d.at.Before(from.Add(time.Minute)) {
			n++
		}
	}
	return n
}

// TestRateLimitSlidingWindow sends one request a second for three minutes:
// exactly 30 pass in the first minute, never more than 30 in any 60 s, and
// the headers tell when the window moves on.
func TestRateLimitSlidingWindow(t *testing.T) {
	t.Parallel()
	l := newKeyLimiter(30)
	var ds []decision
	for i := range 180 {
		ds = append(ds, decide(l, "k", t0.Add(time.Duration(i)*time.Second)))
	}
	if n := countAllowedIn(ds, t0); n != 30 {
		t.Errorf("%d requests allowed in the first minute, want 30", n)
	}
	for i := range 180 {
		if n := countAllowedIn(ds, t0.Add(time.Duration(i)*time.Second)); n > 30 {
			t.Fatalf("%d requests allowed in the 60 s from second %d, want at most 30", n, i)
		}
	}
	for i, d := range ds {
		// Seconds 0-29 pass, 30-59 are refused, 60-89 pass as 0-29 leave the window, and so on.
		if want := (i/30)%2 == 0; d.allowed != want {
			t.Fatalf("second %d: allowed %v, want %v", i, d.allowed, want)
		}
	}

	want := map[string]map[string]string{
		// First request: 29 left, the window (of this one request) moves on at t0+60.
		"0":  {"X-RateLimit-Limit": "30", "X-RateLimit-Remaining": "29", "X-RateLimit-Reset": strconv.FormatInt(t0.Unix()+60, 10), "Retry-After": ""},
		"29": {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": strconv.FormatInt(t0.Unix()+60, 10), "Retry-After": ""},
		// First refusal: the oldest (second 0) leaves the window 30 s later.
		"30": {"X-RateLimit-Limit": "30", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": strconv.FormatInt(t0.Unix()+60, 10), "Retry-After": "30"},
		"59": {"X-RateLimit-Remaining": "0", "Retry-After": "1"},
		// Second 0 has left: allowed again; the oldest now is second 1.
		"60": {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": strconv.FormatInt(t0.Unix()+61, 10), "Retry-After": ""},
	}
	for at, hdrs := range want {
		i, _ := strconv.Atoi(at)
		for name, v := range hdrs {
			if got := ds[i].hdr[name]; got != v {
				t.Errorf("second %d: %s = %q, want %q", i, name, got, v)
			}
		}
	}
}

// TestRateLimitRounding checks Retry-After and X-RateLimit-Reset round up.
func TestRateLimitRounding(t *testing.T) {
	t.Parallel()
	l := newKeyLimiter(2)
	decide(l, "k", t0.Add(400*time.Millisecond))
	decide(l, "k", t0.Add(500*time.Millisecond))
	d := decide(l, "k", t0.Add(60*time.Second)) // the oldest leaves at t0+60.4
	if d.allowed {
		t.Fatal("third request inside the window was allowed")
	}
	if d.hdr["Retry-After"] != "1" || d.hdr["X-RateLimit-Reset"] != strconv.FormatInt(t0.Unix()+61, 10) {
		t.Errorf("Retry-After %q, X-RateLimit-Reset %q; want 1 and %d", d.hdr["Retry-After"], d.hdr["X-RateLimit-Reset"], t0.Unix()+61)
	}
	// Exactly 60 s after the oldest it is out of the window.
	if d := decide(l, "k", t0.Add(60400*time.Millisecond)); !d.allowed {
		t.Errorf("request 60 s after the oldest refused: %v", d.hdr)
	}
}

// TestRateLimitCompliantClients never refuses a client that keeps to at most
// 30 requests in any 60 s: the provider's pacing (one every 60/29 s after a
// first one), full bursts a minute apart, and random bursts paced by a
// client-side sliding window.
func TestRateLimitCompliantClients(t *testing.T) {
	t.Parallel()
	const n = 30
	check := func(name string, times []time.Time) {
		t.Helper()
		l := newKeyLimiter(n)
		for i, at := range times {
			if d := decide(l, "k", at); !d.allowed {
				t.Fatalf("%s: request %d at +%v refused (%v)", name, i, at.Sub(t0), d.hdr)
			}
		}
	}

	var paced []time.Time
	step := time.Minute / (n - 1) // the provider client's rate, (n-1)/60 per second
	for i := range 200 {
		paced = append(paced, t0.Add(time.Duration(i)*step))
	}
	check("paced", paced)

	var bursts []time.Time
	for b := range 4 {
		for range n {
			bursts = append(bursts, t0.Add(time.Duration(b)*time.Minute))
		}
	}
	check("bursts a minute apart", bursts)

	rng := rand.New(rand.NewPCG(1, 2))
	var sent []time.Time
	now := t0
	for len(sent) < 500 {
		now = now.Add(time.Duration(rng.Int64N(int64(4 * time.Second))))
		inWindow := 0
		for _, s := range sent {
			if now.Sub(s) < time.Minute {
				inWindow++
			}
		}
		if inWindow < n {
			sent = append(sent, now)
		}
	}
	check("random, client-side window", sent)
}

// TestRateLimitKeysAndMemory: keys are independent, a key's log never holds
// more than the limit, and idle keys are forgotten.
func TestRateLimitKeysAndMemory(t *testing.T) {
	t.Parallel()
	l := newKeyLimiter(3)
	for i := range 10 {
		decide(l, "busy", t0.Add(time.Duration(i)*time.Millisecond))
	}
	if d := decide(l, "other", t0); !d.allowed || d.hdr["X-RateLimit-Remaining"] != "2" {
		t.Errorf("another key: allowed %v, remaining %q; want its own window", d.allowed, d.hdr["X-RateLimit-Remaining"])
	}
	if got := len(l.keys["busy"].times); got != 3 {
		t.Errorf("busy key holds %d slots, want 3", got)
	}
	for i := range 100 {
		decide(l, "idle-"+strconv.Itoa(i), t0.Add(time.Second))
	}
	if len(l.keys) != 102 {
		t.Fatalf("%d keys tracked, want 102", len(l.keys))
	}
	decide(l, "late", t0.Add(3*time.Minute))
	if len(l.keys) != 1 {
		t.Errorf("%d keys tracked after every other key went idle, want 1", len(l.keys))
	}
}

// TestRateLimitThroughHandler drives the limit through the HTTP handler with
// an injected clock: the limit's requests at one instant pass, the next is a
// 429 naming the wait, and a minute later the key may send again.
func TestRateLimitThroughHandler(t *testing.T) {
	t.Parallel()
	st, key := keyedStore(t)
	now := t0
	h := New(Config{Store: st, Media: testMedia(t, t.TempDir()), PublicURL: "http://clipperd.test", Limits: quota.Limits{RateLimit: 5},
		Now: func() time.Time { return now }})
	get := func() *httptest.ResponseRecorder {
		req := httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/api/clip-projects/nope", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	for i := range 5 {
		if rec := get(); rec.Code != http.StatusNotFound {
			t.Fatalf("request %d: %d %s", i+1, rec.Code, rec.Body)
		}
	}
	now = t0.Add(59 * time.Second)
	rec := get()
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1" {
		t.Errorf("sixth request: %d, Retry-After %q; want 429 and 1", rec.Code, rec.Header().Get("Retry-After"))
	}
	now = t0.Add(time.Minute)
	if rec := get(); rec.Code != http.StatusNotFound || rec.Header().Get("X-RateLimit-Remaining") != "4" {
		t.Errorf("a minute later: %d, X-RateLimit-Remaining %q; want 404 and 4", rec.Code, rec.Header().Get("X-RateLimit-Remaining"))
	}
}

// TestRateLimitSurvivesRestart: a key that used its minute's budget is
// still refused by a new handler over the same store (a restart), until
// the minute is over; before the window was saved, the restart gave the
// budget again.
func TestRateLimitSurvivesRestart(t *testing.T) {
	t.Parallel()
	st, key := keyedStore(t)
	now := t0
	clock := func() time.Time { return now }
	get := func(h http.Handler) *httptest.ResponseRecorder {
		return send(t, h, http.MethodGet, "/api/clip-projects/nope", key, "")
	}
	cfg := Config{Store: st, Media: testMedia(t, t.TempDir()), PublicURL: "http://clipperd.test", Limits: quota.Limits{RateLimit: 3}, Now: clock}
	before := New(cfg)
	for i := range 3 {
		if rec := get(before); rec.Code != http.StatusNotFound {
			t.Fatalf("request %d: %d %s", i+1, rec.Code, rec.Body)
		}
	}
	now = t0.Add(10 * time.Second)
	restarted := New(cfg)
	if rec := get(restarted); rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "50" {
		t.Errorf("after the restart: %d, Retry-After %q; want 429 and 50", rec.Code, rec.Header().Get("Retry-After"))
	}
	now = t0.Add(time.Minute)
	if rec := get(restarted); rec.Code != http.StatusNotFound || rec.Header().Get("X-RateLimit-Remaining") != "2" {
		t.Errorf("a minute later: %d, remaining %q; want 404 and 2", rec.Code, rec.Header().Get("X-RateLimit-Remaining"))
	}
}

// TestPostingEndpointsHaveTheirOwnRateLimit: post tasks, publish schedules,
// social copy and censor jobs share one budget per key (PostRateLimit),
// apart from the core endpoints'; past it they answer 429 with Retry-After
// and the rate-limit headers, in the API's error shape, counted as
// ThrottledPostRate; a minute later, or with another key, posts go again,
// and a restart does not give the minute's budget again.
func TestPostingEndpointsHaveTheirOwnRateLimit(t *testing.T) {
	t.Parallel()
	f := newCopyFixture(t) // org-a's project p1 with clip c01 and its accounts, in a handler of our own
	now := t0
	var throttled []string
	cfg := Config{Store: f.store, Media: testMedia(t, t.TempDir()), PublicURL: "http://clipperd.test",
		Limits: quota.Limits{RateLimit: 2, PostRateLimit: 4}, Now: func() time.Time { return now },
		OnThrottled: func(reason string) { throttled = append(throttled, reason) }}
	h := New(cfg)
	tw := f.twitter.PostAccountID
	postTask := func(key string) *httptest.ResponseRecorder {
		return send(t, h, http.MethodPost, "/api/post-tasks", key, `{"projectId": "p1", "clipId": "c01", "postAccountId": "`+tw+`", "postDetail": {"title": "Launch"}}`)
	}
	for i, rec := range []*httptest.ResponseRecorder{
		postTask(f.key),
		postTask(f.key),
		send(t, h, http.MethodPost, "/api/publish-schedules", f.key,
			`{"projectId": "p1", "clipId": "c01", "postAccountId": "`+tw+`", "postDetail": {"title": "Launch"}, "publishAt": "`+time.Now().Add(time.Hour).UTC().Format(time.RFC3339)+`"}`),
		send(t, h, http.MethodPost, "/api/social-copy-jobs", f.key, copyBody("p1", "c01", tw, "")),
	} {
		if rec.Code >= 300 {
			t.Fatalf("posting request %d within the budget: %d %s", i+1, rec.Code, rec.Body)
		}
	}
	now = t0.Add(15 * time.Second)
	for _, rec := range []*httptest.ResponseRecorder{
		postTask(f.key),
		send(t, h, http.MethodPost, "/api/censor-jobs", f.key, `{"projectId": "p1", "clipId": "c01"}`),
	} {
		wantErrorBody(t, rec, http.StatusTooManyRequests, errTooMany,
			"rate limit of 4 requests per minute per API key on post tasks, publish schedules, social copy and censor jobs exceeded (--post-rate-limit)")
		if got := rec.Header().Get("Retry-After"); got != "45" || rec.Header().Get("X-RateLimit-Limit") != "4" {
			t.Errorf("Retry-After %q, X-RateLimit-Limit %q; want 45 and 4", got, rec.Header().Get("X-RateLimit-Limit"))
		}
	}
	if len(throttled) != 2 || throttled[0] != ThrottledPostRate {
		t.Errorf("throttled %v, want two %q", throttled, ThrottledPostRate)
	}
	// The core endpoints keep their own budget, and another key has its own.
	if rec := send(t, h, http.MethodGet, "/api/clip-projects/p1", f.key, ""); rec.Code != http.StatusOK {
		t.Errorf("a core endpoint past the posting budget: %d %s", rec.Code, rec.Body)
	}
	secondKey, err := f.store.CreateKey(t.Context(), "org-a", "user-2")
	if err != nil {
		t.Fatal(err)
	}
	if rec := postTask(secondKey); rec.Code != http.StatusCreated {
		t.Errorf("another key's post: %d %s", rec.Code, rec.Body)
	}
	if rec := postTask(f.key); rec.Code != http.StatusTooManyRequests {
		t.Errorf("the first key, still within the minute: %d, want 429", rec.Code)
	}
	restarted := New(cfg)
	if rec := send(t, restarted, http.MethodPost, "/api/post-tasks", f.key, `{"projectId": "p1", "clipId": "c01", "postAccountId": "`+tw+`", "postDetail": {"title": "Launch"}}`); rec.Code != http.StatusTooManyRequests {
		t.Errorf("after a restart within the minute: %d %s, want 429", rec.Code, rec.Body)
	}
	now = t0.Add(time.Minute)
	if rec := postTask(f.key); rec.Code != http.StatusCreated || rec.Header().Get("X-RateLimit-Remaining") != "3" {
		t.Errorf("a minute later: %d %s, remaining %q; want 201 and 3", rec.Code, rec.Body, rec.Header().Get("X-RateLimit-Remaining"))
	}
}
