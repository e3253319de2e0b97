package netguard

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestIsPrivateAddr(t *testing.T) {
	for _, s := range []string{"127.0.0.1", "10.2.3.4", "172.16.0.1", "172.31.255.255", "192.168.1.1", "::1",
		"fc00::1", "fd12::1", "169.254.169.254", "fe80::1", "0.0.0.0", "0.1.2.3", "::", "::ffff:127.0.0.1",
		"::ffff:10.0.0.1", "100.64.0.1", "192.0.0.8", "198.18.0.1", "224.0.0.1", "ff02::1", "240.0.0.1",
		"255.255.255.255", "64:ff9b::a00:1"} {
		if !IsPrivateAddr(netip.MustParseAddr(s)) {
			t.Errorf("IsPrivateAddr(%s) = false, want true", s)
		}
	}
	for _, s := range []string{"8.8.8.8", "1.1.1.1", "172.32.0.1", "93.184.216.34", "100.128.0.1",
		"2606:4700::1111", "::ffff:8.8.8.8"} {
		if IsPrivateAddr(netip.MustParseAddr(s)) {
			t.Errorf("IsPrivateAddr(%s) = true, want false", s)
		}
	}
	if !IsPrivateAddr(netip.Addr{}) {
		t.Error("IsPrivateAddr of the zero Addr = false, want true")
	}
}

// TestNonPublicAddr covers the hosts whose address is visible without DNS:
// literal addresses (as url.URL.Hostname gives them) and localhost names.
func TestNonPublicAddr(t *testing.T) {
	cases := map[string]string{
		"127.0.0.1":            "127.0.0.1",
		"::1":                  "::1",
		"0.0.0.0":              "0.0.0.0",
		"::ffff:10.0.0.1":      "10.0.0.1",
		"169.254.169.254":      "169.254.169.254",
		"localhost":            "127.0.0.1",
		"LocalHost.":           "127.0.0.1",
		"clipperd.localhost":   "127.0.0.1",
		"8.8.8.8":              "",
		"2606:4700::1111":      "",
		"::ffff:93.184.216.34": "",
	}
	for host, want := range cases {
		got, err := NonPublicAddr(t.Context(), host)
		if err != nil {
			t.Errorf("NonPublicAddr(%q): %v", host, err)
			continue
		}
		if want == "" && got.IsValid() || want != "" && got.String() != want {
			t.Errorf("NonPublicAddr(%q) = %v, want %q", host, got, want)
		}
	}
}

// receiver is a loopback server counting the requests it got.
func receiver(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// TestClientRefusesLoopbackAtConnect: the guard refuses the resolved
// address, so a literal loopback address and a name resolving to one
// (localhost stands for any name DNS maps to a private address) never reach
// the server; allowPrivate lets both through.
func TestClientRefusesLoopbackAtConnect(t *testing.T) {
	srv, hits := receiver(t)
	port := srv.URL[strings.LastIndexByte(srv.URL, ':')+1:]
	for _, target := range []string{srv.URL, "http://localhost:" + port + "/hook"} {
		_, err := Client(nil, false).Get(target)
		var refused *RefusedError
		if !errors.As(err, &refused) || !refused.Addr.IsLoopback() {
			t.Errorf("GET %s: err = %v, want a RefusedError for a loopback address", target, err)
		}
		resp, err := Client(nil, true).Get(target)
		if err != nil {
			t.Fatalf("GET %s with private addresses allowed: %v", target, err)
		}
		resp.Body.Close()
	}
	if got := hits.Load(); got != 2 {
		t.Errorf("server got %d requests, want only the 2 allowed ones", got)
	}
}

// TestClientKeepsBase: the guarded copy keeps the base client's timeout
// and redirect policy and its transport's settings, and leaves base as it
// was.
func TestClientKeepsBase(t *testing.T) {
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	baseTransport := &http.Transport{MaxIdleConnsPerHost: 3, Proxy: http.ProxyFromEnvironment}
	base := &http.Client{Timeout: 7 * time.Second, CheckRedirect: noRedirect, Transport: baseTransport}
	c := Client(base, false)
	tr, ok := c.Transport.(*http.Transport)
	if !ok || tr == baseTransport {
		t.Fatalf("transport %T is not a guarded copy of the base's", c.Transport)
	}
	if c.Timeout != 7*time.Second || c.CheckRedirect == nil || tr.MaxIdleConnsPerHost != 3 {
		t.Errorf("guarded client lost base settings: timeout %s, redirect policy %v, idle per host %d",
			c.Timeout, c.CheckRedirect != nil, tr.MaxIdleConnsPerHost)
	}
	if tr.Proxy != nil {
		t.Error("a guarded client uses a proxy, which would connect past the guard")
	}
	if base.Transport != baseTransport || baseTransport.DialContext != nil {
		t.Error("Client changed the base client")
	}
	srv, hits := receiver(t)
	if _, err := c.Get(srv.URL); !errors.As(err, new(*RefusedError)) || hits.Load() != 0 {
		t.Errorf("a copy of a base client reached loopback: err %v, %d requests", err, hits.Load())
	}
}

// TestClientRefusesRedirectToPrivate: a redirect is one more connection,
// checked like the first. The first hop is allowed here by a client whose
// guard is off only for it (the test has no public server to start from).
func TestClientRefusesRedirectToPrivate(t *testing.T) {
	target, hits := receiver(t)
	hop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/inside", http.StatusFound)
	}))
	t.Cleanup(hop.Close)
	guarded := Client(nil, false).Transport
	first := Client(nil, true).Transport
	c := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if "http://"+r.URL.Host == hop.URL {
			return first.RoundTrip(r)
		}
		return guarded.RoundTrip(r)
	})}
	_, err := c.Get(hop.URL)
	if !errors.As(err, new(*RefusedError)) || hits.Load() != 0 {
		t.Errorf("redirect to loopback: err %v, %d requests reached it; want a RefusedError and none", err, hits.Load())
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
