package gallery

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

func TestRootRedirectsToGallery(t *testing.T) {
	e := newEnv(t)
	rec := e.get(t, "/", nil)
	if rec.Code != http.StatusFound || rec.Header().Get("Location") != "/ui/" {
		t.Fatalf("GET / = %d to %q, want 302 to /ui/", rec.Code, rec.Header().Get("Location"))
	}
}

func TestLoginFormHasTheFieldsTheBrowserTestsUse(t *testing.T) {
	e := newEnv(t)
	rec := e.get(t, "/ui/login", nil)
	wantStatus(t, rec, http.StatusOK)
	body := rec.Body.String()
	for _, want := range []string{`<form id="login" method="post" action="/ui/login">`, `name="api_key" type="password"`,
		`<button type="submit">Log in</button>`, `name="viewport"`} {
		if !strings.Contains(body, want) {
			t.Errorf("login form lacks %s:\n%s", want, body)
		}
	}
	if strings.Contains(body, `class="error"`) {
		t.Errorf("a fresh form shows an error:\n%s", body)
	}
}

func TestLoginSetsAStrictSignedCookieWithoutTheKey(t *testing.T) {
	e := newEnv(t)
	c := e.login(t, e.keyA)
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/ui/" || c.Secure {
		t.Errorf("cookie %+v: want HttpOnly, SameSite=Strict, Path=/ui/, not Secure over http", c)
	}
	if c.MaxAge != int(e.sessionTTL/time.Second) {
		t.Errorf("cookie Max-Age %d, want the session TTL %v", c.MaxAge, e.sessionTTL)
	}
	if strings.Contains(c.Value, e.keyA) || strings.Contains(c.Value, strings.TrimPrefix(e.keyA, "ck_")) {
		t.Fatalf("the cookie carries the API key: %s", c.Value)
	}
	rec := e.get(t, "/ui/", c)
	wantStatus(t, rec, http.StatusOK)
	if !strings.Contains(rec.Body.String(), orgA) {
		t.Errorf("the projects page does not name the org %s", orgA)
	}
}

func TestCookieIsSecureAndHostPrefixedBehindHTTPS(t *testing.T) {
	e := newEnv(t)
	h, err := New(Config{Store: e.st, PublicURL: "https://clips.example.com", Now: e.clock.now})
	if err != nil {
		t.Fatal(err)
	}
	e.h = h
	c := e.login(t, e.keyA)
	if !c.Secure || c.Name != SecureSessionCookie || c.Path != "/" || c.Domain != "" {
		t.Fatalf("cookie %+v: want Secure, named %s, Path=/, no Domain", c, SecureSessionCookie)
	}
	if c.MaxAge != int(DefaultSessionTTL/time.Second) {
		t.Errorf("Max-Age %d, want the default %v", c.MaxAge, DefaultSessionTTL)
	}
	wantStatus(t, e.get(t, "/ui/", c), http.StatusOK)
	// The plain name is not taken as a session behind https.
	wantToLogin(t, e.get(t, "/ui/", &http.Cookie{Name: SessionCookie, Value: c.Value}))
}

func TestWrongOrEmptyKeyIs401WithTheFormAndNoEcho(t *testing.T) {
	e := newEnv(t)
	for _, key := range []string{"ck_not-a-key-<b>", ""} {
		rec := e.do(t, http.MethodPost, "/ui/login", url.Values{"api_key": {key}}, nil)
		wantStatus(t, rec, http.StatusUnauthorized)
		body := rec.Body.String()
		if !strings.Contains(body, `<p class="error" role="alert">That API key is not valid.</p>`) ||
			!strings.Contains(body, `<form id="login"`) {
			t.Errorf("key %q: the answer lacks the form or the error:\n%s", key, body)
		}
		if key != "" && (strings.Contains(body, "not-a-key") || strings.Contains(body, key)) {
			t.Errorf("key %q: the answer echoes the key", key)
		}
		if sessionCookie(rec) != nil {
			t.Errorf("key %q: a cookie was set", key)
		}
	}
}

func TestPagesWithoutSessionRedirectToLogin(t *testing.T) {
	e := newEnv(t)
	p := e.project(t, orgA, "x", nil)
	for _, path := range []string{"/ui/", "/ui/projects/" + p.ID, "/ui/collections", "/ui/schedules", "/ui/nowhere"} {
		wantToLogin(t, e.get(t, path, nil))
	}
	rec := e.get(t, "/ui/progress?ids="+p.ID, nil)
	wantStatus(t, rec, http.StatusUnauthorized)
	if !strings.Contains(rec.Body.String(), `"errorName":"Unauthorized"`) {
		t.Errorf("progress without a session: %s", rec.Body)
	}
}

func TestAlteredOrUnknownCookieIsRefused(t *testing.T) {
	e := newEnv(t)
	c := e.login(t, e.keyA)
	if len(c.Value) < 43 { // 256 bits in base64url
		t.Fatalf("session id %q is shorter than 256 bits", c.Value)
	}
	altered := *c
	altered.Value = c.Value[:len(c.Value)-1] + map[bool]string{true: "B", false: "A"}[strings.HasSuffix(c.Value, "A")]
	for name, bad := range map[string]*http.Cookie{"altered": &altered, "empty": {Name: SessionCookie},
		"garbage": {Name: SessionCookie, Value: "garbage"}} {
		if rec := e.get(t, "/ui/", bad); rec.Code != http.StatusSeeOther {
			t.Errorf("%s cookie: status %d, want 303 to the login", name, rec.Code)
		}
	}
	wantStatus(t, e.get(t, "/ui/", c), http.StatusOK)
}

func TestExpiredCookieIsRefused(t *testing.T) {
	e := newEnv(t)
	c := e.login(t, e.keyA)
	e.clock.advance(e.sessionTTL - time.Second)
	wantStatus(t, e.get(t, "/ui/", c), http.StatusOK)
	e.clock.advance(time.Second)
	wantToLogin(t, e.get(t, "/ui/", c))
}

func TestLogoutClearsTheCookie(t *testing.T) {
	e := newEnv(t)
	c := e.login(t, e.keyA)
	rec := e.do(t, http.MethodPost, "/ui/logout", url.Values{}, c)
	wantToLogin(t, rec)
	cleared := sessionCookie(rec)
	if cleared == nil || cleared.Value != "" || cleared.MaxAge >= 0 || cleared.Path != "/ui/" {
		t.Fatalf("logout did not clear the cookie: %+v", cleared)
	}
}

func TestLogoutEndsTheSessionForEveryCopyOfTheCookie(t *testing.T) {
	e := newEnv(t)
	c := e.login(t, e.keyA)
	copied := *c
	wantToLogin(t, e.do(t, http.MethodPost, "/ui/logout", url.Values{}, c))
	wantToLogin(t, e.get(t, "/ui/", &copied))
	wantStatus(t, e.get(t, "/ui/progress", &copied), http.StatusUnauthorized)
	// Logging out again with the dead cookie is harmless.
	wantToLogin(t, e.do(t, http.MethodPost, "/ui/logout", url.Values{}, &copied))
}

func TestGetLogoutIs405WithAllowPost(t *testing.T) {
	e := newEnv(t)
	c := e.login(t, e.keyA)
	rec := e.get(t, "/ui/logout", c)
	wantStatus(t, rec, http.StatusMethodNotAllowed)
	if rec.Header().Get("Allow") != http.MethodPost {
		t.Errorf("Allow %q, want POST", rec.Header().Get("Allow"))
	}
	wantStatus(t, e.get(t, "/ui/", c), http.StatusOK) // a GET does not log out
}

func TestProgressAnswers500NotALogoutWhenTheStoreFails(t *testing.T) {
	e := newEnv(t)
	c := e.login(t, e.keyA)
	if err := e.st.Close(); err != nil {
		t.Fatal(err)
	}
	rec := e.get(t, "/ui/progress", c)
	wantStatus(t, rec, http.StatusInternalServerError)
	if !strings.Contains(rec.Body.String(), `"errorName":"Internal Server Error"`) {
		t.Errorf("body %s", rec.Body)
	}
}

func TestRevokedKeyEndsTheSession(t *testing.T) {
	e := newEnv(t)
	c := e.login(t, e.keyA)
	wantStatus(t, e.get(t, "/ui/", c), http.StatusOK)
	if err := e.st.RevokeKey(context.Background(), store.KeyHash(e.keyA)); err != nil {
		t.Fatal(err)
	}
	wantToLogin(t, e.get(t, "/ui/", c))
	wantStatus(t, e.get(t, "/ui/progress", c), http.StatusUnauthorized)
}

func TestLoggingInAgainReplacesTheSession(t *testing.T) {
	e := newEnv(t)
	other := e.login(t, e.keyA) // another browser of the same user
	c := e.login(t, e.keyA)
	rec := e.get(t, "/ui/login", c)
	wantStatus(t, rec, http.StatusOK)
	if !strings.Contains(rec.Body.String(), `<form id="login"`) {
		t.Fatalf("no form with a session:\n%s", rec.Body)
	}
	rec = e.do(t, http.MethodPost, "/ui/login", url.Values{"api_key": {e.keyB}}, c)
	wantStatus(t, rec, http.StatusSeeOther)
	b := sessionCookie(rec)
	if body := e.get(t, "/ui/", b).Body.String(); !strings.Contains(body, orgB) || strings.Contains(body, orgA) {
		t.Errorf("after logging in with org B's key the page is not org B's:\n%s", body)
	}
	wantToLogin(t, e.get(t, "/ui/", c))                   // the replaced session is dead
	wantStatus(t, e.get(t, "/ui/", other), http.StatusOK) // the other browser's is not
}

func TestLoginAttemptsAreBoundedPerClient(t *testing.T) {
	e := newEnv(t)
	for range loginBurst {
		rec := e.do(t, http.MethodPost, "/ui/login", url.Values{"api_key": {"wrong"}}, nil)
		wantStatus(t, rec, http.StatusUnauthorized)
	}
	// Even the right key is refused now, without being looked at.
	rec := e.do(t, http.MethodPost, "/ui/login", url.Values{"api_key": {e.keyA}}, nil)
	wantStatus(t, rec, http.StatusTooManyRequests)
	if rec.Header().Get("Retry-After") == "" || sessionCookie(rec) != nil ||
		!strings.Contains(rec.Body.String(), `<p class="error" role="alert">Too many login attempts`) {
		t.Fatalf("refused attempt: headers %v body %s", rec.Header(), rec.Body)
	}
	// Another client is not held back; the first gets an attempt back in time.
	e.remoteAddr = "198.51.100.7:999"
	e.login(t, e.keyA)
	e.remoteAddr = "192.0.2.1:1234"
	e.clock.advance(loginEvery)
	e.login(t, e.keyA)
}

func TestSuccessfulLoginsSpendNoAttempt(t *testing.T) {
	e := newEnv(t)
	for range 3 * loginBurst {
		e.login(t, e.keyA)
	}
	for range loginBurst {
		wantStatus(t, e.do(t, http.MethodPost, "/ui/login", url.Values{"api_key": {"wrong"}}, nil), http.StatusUnauthorized)
	}
	wantStatus(t, e.do(t, http.MethodPost, "/ui/login", url.Values{"api_key": {"wrong"}}, nil), http.StatusTooManyRequests)
}

func TestClientsBehindATrustedProxyAreCountedApart(t *testing.T) {
	e := newEnv(t)
	h, err := New(Config{Store: e.st, PublicURL: publicURL, Now: e.clock.now,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}})
	if err != nil {
		t.Fatal(err)
	}
	attempt := func(peer, forwarded, key string) int {
		req := httptest.NewRequest(http.MethodPost, "/ui/login", strings.NewReader(url.Values{"api_key": {key}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.RemoteAddr = peer
		if forwarded != "" {
			req.Header.Set("X-Forwarded-For", forwarded)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	// One client spends its attempts through the proxy, making up
	// addresses on the left of the header, which do not help it.
	for i := range loginBurst {
		if code := attempt("10.0.0.1:80", fmt.Sprintf("192.0.2.%d, 203.0.113.5, 10.0.0.2", i), "wrong"); code != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d", i, code)
		}
	}
	if code := attempt("10.0.0.1:80", "198.18.0.1, 203.0.113.5", "wrong"); code != http.StatusTooManyRequests {
		t.Errorf("the client behind the proxy after its attempts: %d, want 429", code)
	}
	// Another client behind the same proxy is not held back.
	if code := attempt("10.0.0.1:80", "203.0.113.6", e.keyA); code != http.StatusSeeOther {
		t.Errorf("another client behind the proxy: %d, want 303", code)
	}
	// An untrusted peer's header is not believed: it is counted as itself.
	for range loginBurst {
		attempt("198.51.100.9:80", "203.0.113.5", "wrong")
	}
	if code := attempt("198.51.100.9:80", "203.0.113.77", "wrong"); code != http.StatusTooManyRequests {
		t.Errorf("an untrusted peer changing its X-Forwarded-For: %d, want 429", code)
	}
}

func TestForwardedClientAddresses(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	for name, c := range map[string]struct {
		peer      string
		forwarded []string
		want      string
		wantWarn  bool
	}{
		"no proxy: the peer":                     {peer: "198.51.100.9:4000", forwarded: []string{"203.0.113.7"}, want: "198.51.100.9"},
		"one proxy: the entry before it":         {peer: "10.0.0.1:4000", forwarded: []string{"203.0.113.7"}, want: "203.0.113.7"},
		"entries further left are not believed":  {peer: "10.0.0.1:4000", forwarded: []string{"1.2.3.4, 203.0.113.7"}, want: "203.0.113.7"},
		"proxies chained, across headers":        {peer: "10.0.0.1:4000", forwarded: []string{"203.0.113.7, 10.0.0.3", "10.0.0.2"}, want: "203.0.113.7"},
		"an IPv4 entry with a port":              {peer: "10.0.0.1:4000", forwarded: []string{"203.0.113.7:51234"}, want: "203.0.113.7"},
		"an IPv6 entry with a port: its /64":     {peer: "10.0.0.1:4000", forwarded: []string{"[2001:db8::1]:443"}, want: "2001:db8::/64"},
		"a proxy entry with a port is passed":    {peer: "10.0.0.1:4000", forwarded: []string{"203.0.113.7, 10.0.0.2:8080"}, want: "203.0.113.7"},
		"every entry a proxy: the left-most":     {peer: "10.0.0.1:4000", forwarded: []string{"10.0.0.3, 10.0.0.2"}, want: "10.0.0.3"},
		"unreadable client entry: the peer":      {peer: "10.0.0.1:4000", forwarded: []string{"1.2.3.4, unknown, 10.0.0.2"}, want: "10.0.0.1", wantWarn: true},
		"no X-Forwarded-For from a proxy: peer":  {peer: "10.0.0.1:4000", want: "10.0.0.1", wantWarn: true},
		"an empty entry is not an address: peer": {peer: "10.0.0.1:4000", forwarded: []string{"203.0.113.7,"}, want: "10.0.0.1", wantWarn: true},
	} {
		r := httptest.NewRequest(http.MethodPost, "/ui/login", nil)
		r.RemoteAddr = c.peer
		for _, f := range c.forwarded {
			r.Header.Add("X-Forwarded-For", f)
		}
		got, err := clientAddr(r, trusted)
		if got != c.want || (err != nil) != c.wantWarn {
			t.Errorf("%s: client %q (warning: %v), want %q (warning: %v)", name, got, err, c.want, c.wantWarn)
		}
	}
}

func TestIPv6ClientsAreCountedPerSlash64(t *testing.T) {
	client := func(peer string) string {
		addr, err := clientAddr(&http.Request{RemoteAddr: peer}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return addr
	}
	a, b, c := client("[2001:db8:1:2:aaaa::1]:443"), client("[2001:db8:1:2:bbbb::9]:443"), client("[2001:db8:1:3::1]:443")
	if a != b || a == c {
		t.Fatalf("clientAddr: %s %s %s", a, b, c)
	}
}

func TestCrossOriginLogoutIsRefused(t *testing.T) {
	e := newEnv(t)
	c := e.login(t, e.keyA)
	req, rec := httptest.NewRequest(http.MethodPost, "/ui/logout", nil), httptest.NewRecorder()
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.AddCookie(c)
	e.h.ServeHTTP(rec, req)
	wantStatus(t, rec, http.StatusForbidden)
	if sessionCookie(rec) != nil {
		t.Fatal("a cross-site logout cleared the cookie")
	}
}

// TestLoginOnAFullDiskAnswers507: a login whose session cannot be stored
// because the disk is full is a 507 with Retry-After, as the API answers,
// not a 500; once space is back the same key logs in.
func TestLoginOnAFullDiskAnswers507(t *testing.T) {
	e := newEnv(t)
	if err := e.st.LimitSize(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	// Fill the database's last free pages, with smaller rows as they run
	// out, so the session's insert finds no room.
	n := 0
	for _, pad := range []int{400, 100, 0} {
		for range 100000 {
			n++
			err := e.st.CreateGallerySession(context.Background(), fmt.Sprintf("f%d%s", n, strings.Repeat("x", pad)),
				store.Key{Hash: store.KeyHash(e.keyA), OrgID: orgA}, e.clock.now().Add(time.Hour))
			if err != nil {
				if !store.IsFull(err) {
					t.Fatal(err)
				}
				break
			}
		}
	}
	rec := e.do(t, http.MethodPost, "/ui/login", url.Values{"api_key": {e.keyA}}, nil)
	if rec.Code != http.StatusInsufficientStorage || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("login on a full disk: %d (Retry-After %q), want 507 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
	if err := e.st.LimitSize(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	e.login(t, e.keyA)
}
