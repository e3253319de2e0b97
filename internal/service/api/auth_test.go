package api

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/failbound"
)

func TestBearerToken(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"Bearer ck_abc", "ck_abc", true},
		{"bearer   ck_abc ", "ck_abc", true},
		{"ck_abc", "ck_abc", true}, // bare token, as some of the spec's examples send
		{"Basic dXNlcjpwYXNz", "", false},
		{"Bearer ", "", false},
		{"Bearer a b", "", false},
		{"", "", false},
	}
	for _, c := range cases {
		got, ok := bearerToken(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("bearerToken(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestFailedKeysAreBoundedPerClient: after failbound.Burst wrong keys from
// one address, its requests are answered 429 with Retry-After before any
// key is looked at (a right key too), until an attempt has come back;
// other addresses, and clients behind a trusted proxy told apart by
// X-Forwarded-For, are not held up.
func TestFailedKeysAreBoundedPerClient(t *testing.T) {
	t.Parallel()
	st, key := keyedStore(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var throttled []string
	h := New(Config{Store: st, Now: func() time.Time { return now },
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")},
		OnThrottled:    func(reason string) { throttled = append(throttled, reason) }})
	get := func(peer, forwarded, bearer string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/api/collections?q=mine", nil)
		r.RemoteAddr = peer + ":4321"
		if forwarded != "" {
			r.Header.Set("X-Forwarded-For", forwarded)
		}
		r.Header.Set("Authorization", "Bearer "+bearer)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for i := range failbound.Burst {
		if w := get("203.0.113.9", "", "ck_wrong"); w.Code != http.StatusUnauthorized {
			t.Fatalf("wrong key %d: %d, want 401", i+1, w.Code)
		}
	}
	w := get("203.0.113.9", "", "ck_wrong")
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "6" ||
		!strings.Contains(w.Body.String(), "too many failed API key attempts") {
		t.Fatalf("wrong key past the bound: %d %q %s, want 429 with Retry-After 6", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	if w := get("203.0.113.9", "", key); w.Code != http.StatusTooManyRequests {
		t.Errorf("right key from the blocked address: %d, want 429", w.Code)
	}
	if w := get("198.51.100.7", "", key); w.Code != http.StatusOK {
		t.Errorf("right key from another address: %d %s, want 200", w.Code, w.Body)
	}
	if len(throttled) != 2 || throttled[0] != ThrottledAuth {
		t.Errorf("throttled reasons %v, want two %q", throttled, ThrottledAuth)
	}
	// Behind the trusted proxy 10.0.0.1, clients are told apart.
	for range failbound.Burst {
		get("10.0.0.1", "192.0.2.1", "ck_wrong")
	}
	if w := get("10.0.0.1", "192.0.2.1", key); w.Code != http.StatusTooManyRequests {
		t.Errorf("blocked client behind the proxy: %d, want 429", w.Code)
	}
	if w := get("10.0.0.1", "192.0.2.2", key); w.Code != http.StatusOK {
		t.Errorf("another client behind the proxy: %d, want 200", w.Code)
	}
	now = now.Add(failbound.Every)
	if w := get("203.0.113.9", "", key); w.Code != http.StatusOK {
		t.Errorf("right key once an attempt came back: %d, want 200", w.Code)
	}
}
