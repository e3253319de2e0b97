package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/failbound"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
	openstores "github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest/stores"
)

// twoNodes opens one new PostgreSQL database twice, as two API nodes do,
// with one API key (org-a, user-a) made through the first.
func twoNodes(t testing.TB) (a, b *store.Store, key string) {
	t.Helper()
	url := storetest.PostgresURL(t)
	a, b = openstores.Open(t, url), openstores.Open(t, url)
	key, err := a.CreateKey(context.Background(), "org-a", "user-a")
	if err != nil {
		t.Fatal(err)
	}
	return a, b, key
}

// nodeHandlers are the handlers of two API nodes over a and b, with the
// per-key limit and a clock of the test's.
func nodeHandlers(t *testing.T, a, b *store.Store, limit int, now func() time.Time) [2]http.Handler {
	var hs [2]http.Handler
	for i, st := range []*store.Store{a, b} {
		hs[i] = New(Config{Store: st, Media: testMedia(t, t.TempDir()), PublicURL: "http://clipperd.test",
			Limits: quota.Limits{RateLimit: limit}, Now: now})
	}
	return hs
}

// TestRateLimitSharedAcrossNodes: two API nodes over one PostgreSQL
// database, twice the limit of one key's requests sent to them in turn:
// exactly the limit is answered, counted down across the nodes, and the
// rest are 429s naming the wait, on either node; a minute later the key
// may send again. Each node counting on its own let nearly twice the
// limit through.
func TestRateLimitSharedAcrossNodes(t *testing.T) {
	t.Parallel()
	a, b, key := twoNodes(t)
	const limit = 5
	now := t0
	hs := nodeHandlers(t, a, b, limit, func() time.Time { return now })
	get := func(node int) *httptest.ResponseRecorder {
		return send(t, hs[node], http.MethodGet, "/api/clip-projects/nope", key, "")
	}
	reset := strconv.FormatInt(t0.Unix()+60, 10)
	for i := range 2 * limit {
		now = t0.Add(time.Duration(i) * time.Second)
		rec := get(i % 2)
		hdr := rec.Header()
		if i < limit {
			if rec.Code != http.StatusNotFound || hdr.Get("X-RateLimit-Remaining") != strconv.Itoa(limit-1-i) || hdr.Get("Retry-After") != "" {
				t.Errorf("request %d (node %d): %d, remaining %q, Retry-After %q; want 404, %d and none",
					i+1, i%2, rec.Code, hdr.Get("X-RateLimit-Remaining"), hdr.Get("Retry-After"), limit-1-i)
			}
			continue
		}
		wantErrorBody(t, rec, http.StatusTooManyRequests, errTooMany,
			"rate limit of 5 requests per minute per API key exceeded")
		if hdr.Get("Retry-After") != strconv.Itoa(60-i) || hdr.Get("X-RateLimit-Limit") != "5" ||
			hdr.Get("X-RateLimit-Remaining") != "0" || hdr.Get("X-RateLimit-Reset") != reset {
			t.Errorf("request %d (node %d): Retry-After %q, X-RateLimit-Limit %q, -Remaining %q, -Reset %q; want %d, 5, 0, %s",
				i+1, i%2, hdr.Get("Retry-After"), hdr.Get("X-RateLimit-Limit"), hdr.Get("X-RateLimit-Remaining"),
				hdr.Get("X-RateLimit-Reset"), 60-i, reset)
		}
	}
	// The first request (node 0's) leaves the window at t0+60; node 1 sees it too.
	now = t0.Add(time.Minute)
	if rec := get(1); rec.Code != http.StatusNotFound || rec.Header().Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("a minute after the first: %d, remaining %q; want 404 and 0", rec.Code, rec.Header().Get("X-RateLimit-Remaining"))
	}
	if rec := get(0); rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1" {
		t.Errorf("next, before the second leaves: %d, Retry-After %q; want 429 and 1", rec.Code, rec.Header().Get("Retry-After"))
	}
}

// TestRateLimitSharedParallel: many requests of one new key at once on
// both nodes, at one instant: exactly the limit is admitted, never more,
// however the nodes' transactions interleave (the first of the key's rows
// is inserted by one of them).
func TestRateLimitSharedParallel(t *testing.T) {
	t.Parallel()
	a, b, key := twoNodes(t)
	const limit, perNode = 12, 20
	hs := nodeHandlers(t, a, b, limit, func() time.Time { return t0 })
	var wg sync.WaitGroup
	codes := make(chan int, 2*perNode)
	for node := range 2 {
		for range perNode {
			wg.Go(func() {
				req := httptest.NewRequestWithContext(context.Background(), http.MethodGet, "/api/clip-projects/nope", nil)
				req.Header.Set("Authorization", "Bearer "+key)
				rec := httptest.NewRecorder()
				hs[node].ServeHTTP(rec, req)
				codes <- rec.Code
			})
		}
	}
	wg.Wait()
	close(codes)
	count := map[int]int{}
	for c := range codes {
		count[c]++
	}
	if count[http.StatusNotFound] != limit || count[http.StatusTooManyRequests] != 2*perNode-limit {
		t.Errorf("answers %v; want %d admitted (404) and %d refused (429)", count, limit, 2*perNode-limit)
	}
}

// TestPostRateLimitSharedAcrossNodes: the posting endpoints' budget is
// shared by the nodes too, and apart from the core endpoints' (its windows
// are the key's under post:).
func TestPostRateLimitSharedAcrossNodes(t *testing.T) {
	t.Parallel()
	a, b, _ := twoNodes(t)
	coreA, postA := newLimiters(a, 2, 3, nil, nil)
	coreB, postB := newLimiters(b, 2, 3, nil, nil)
	if postA.shared == nil || coreB.shared == nil || postA.saved != nil {
		t.Fatal("limiters over PostgreSQL do not decide in the database")
	}
	for i, l := range []*keyLimiter{postA, postB, postA} {
		if d := decide(l, "h", t0.Add(time.Duration(i)*time.Second)); !d.allowed || d.hdr["X-RateLimit-Remaining"] != strconv.Itoa(2-i) {
			t.Fatalf("post %d: allowed %v, remaining %q; want allowed, %d", i+1, d.allowed, d.hdr["X-RateLimit-Remaining"], 2-i)
		}
	}
	if d := decide(postB, "h", t0.Add(4*time.Second)); d.allowed || d.hdr["Retry-After"] != "56" {
		t.Errorf("fourth post on the other node: allowed %v, Retry-After %q; want refused, 56", d.allowed, d.hdr["Retry-After"])
	}
	for i, l := range []*keyLimiter{coreB, coreA} {
		if d := decide(l, "h", t0.Add(5*time.Second)); !d.allowed || d.hdr["X-RateLimit-Remaining"] != strconv.Itoa(1-i) {
			t.Errorf("core request %d past the posting budget: allowed %v, remaining %q", i+1, d.allowed, d.hdr["X-RateLimit-Remaining"])
		}
	}
	if d := decide(coreA, "h", t0.Add(6*time.Second)); d.allowed {
		t.Error("third core request across the nodes allowed past the limit of 2")
	}
}

// TestFailedKeysBoundedAcrossNodes: failed API keys from one address,
// sent to two API nodes in turn, are counted once: after failbound.Burst
// of them both nodes answer 429 before looking at any key (a right one
// too), another address is not held up, and an attempt comes back on
// either node after failbound.Every. Counted per node, the address had
// Burst wrong keys on each.
func TestFailedKeysBoundedAcrossNodes(t *testing.T) {
	t.Parallel()
	a, b, key := twoNodes(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	hs := nodeHandlers(t, a, b, 100, func() time.Time { return now })
	get := func(node int, peer, bearer string) *httptest.ResponseRecorder {
		r := httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/api/collections?q=mine", nil)
		r.RemoteAddr = peer + ":4321"
		r.Header.Set("Authorization", "Bearer "+bearer)
		w := httptest.NewRecorder()
		hs[node].ServeHTTP(w, r)
		return w
	}
	for i := range failbound.Burst {
		if w := get(i%2, "203.0.113.9", "ck_wrong"); w.Code != http.StatusUnauthorized {
			t.Fatalf("wrong key %d (node %d): %d, want 401", i+1, i%2, w.Code)
		}
	}
	for node := range 2 {
		if w := get(node, "203.0.113.9", key); w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "6" {
			t.Errorf("right key from the blocked address on node %d: %d, Retry-After %q; want 429, 6", node, w.Code, w.Header().Get("Retry-After"))
		}
	}
	if w := get(1, "198.51.100.7", key); w.Code != http.StatusOK {
		t.Errorf("right key from another address: %d %s, want 200", w.Code, w.Body)
	}
	now = now.Add(failbound.Every)
	if w := get(1, "203.0.113.9", key); w.Code != http.StatusOK {
		t.Errorf("right key once an attempt came back: %d %s, want 200", w.Code, w.Body)
	}
}
