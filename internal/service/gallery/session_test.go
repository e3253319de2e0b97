package gallery

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
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

func TestCookieIsSecureBehindHTTPS(t *testing.T) {
	e := newEnv(t)
	h, err := New(Config{Store: e.st, PublicURL: "https://clips.example.com", Now: e.clock.now})
	if err != nil {
		t.Fatal(err)
	}
	e.h = h
	c := e.login(t, e.keyA)
	if !c.Secure {
		t.Fatalf("cookie %+v is not Secure with an https public URL", c)
	}
	if c.MaxAge != int(DefaultSessionTTL/time.Second) {
		t.Errorf("Max-Age %d, want the default %v", c.MaxAge, DefaultSessionTTL)
	}
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

func TestTamperedCookieIsRefused(t *testing.T) {
	e := newEnv(t)
	c := e.login(t, e.keyA)
	parts := strings.Split(c.Value, ".")
	if len(parts) != 5 {
		t.Fatalf("cookie value %q: want 5 dot-separated fields", c.Value)
	}
	// Another org in the same cookie, the MAC unchanged.
	other := *c
	other.Value = strings.Replace(c.Value, parts[1], "b3JnLWI", 1) // base64url("org-b")
	// A later expiry.
	later := *c
	later.Value = strings.Join([]string{parts[0], parts[1], parts[2], "99999999999", parts[4]}, ".")
	// A cookie signed with another secret.
	forged := *c
	forged.Value = session{OrgID: orgA, KeyTag: parts[2], Expires: e.clock.now().Add(time.Hour)}.encode([]byte("guess"))
	for name, bad := range map[string]*http.Cookie{"org": &other, "expiry": &later, "secret": &forged,
		"garbage": {Name: SessionCookie, Value: "garbage"}} {
		if rec := e.get(t, "/ui/", bad); rec.Code != http.StatusSeeOther {
			t.Errorf("cookie with another %s: status %d, want 303 to the login", name, rec.Code)
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

func TestRevokedKeyEndsTheSession(t *testing.T) {
	e := newEnv(t)
	c := e.login(t, e.keyA)
	wantStatus(t, e.get(t, "/ui/", c), http.StatusOK)
	if err := e.st.RevokeKey(context.Background(), e.keyA); err != nil {
		t.Fatal(err)
	}
	wantToLogin(t, e.get(t, "/ui/", c))
	wantStatus(t, e.get(t, "/ui/progress", c), http.StatusUnauthorized)
}

func TestRotatingTheMediaKeyEndsSessions(t *testing.T) {
	e := newEnv(t)
	c := e.login(t, e.keyA)
	if err := e.st.RotateMediaKey(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantToLogin(t, e.get(t, "/ui/", c))
}

func TestLoggingInAgainReplacesTheSession(t *testing.T) {
	e := newEnv(t)
	c := e.login(t, e.keyA)
	rec := e.get(t, "/ui/login", c)
	wantStatus(t, rec, http.StatusOK)
	if !strings.Contains(rec.Body.String(), `<form id="login"`) {
		t.Fatalf("no form with a session:\n%s", rec.Body)
	}
	b := e.login(t, e.keyB)
	if body := e.get(t, "/ui/", b).Body.String(); !strings.Contains(body, orgB) || strings.Contains(body, orgA) {
		t.Errorf("after logging in with org B's key the page is not org B's:\n%s", body)
	}
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

func TestIPv6ClientsAreCountedPerSlash64(t *testing.T) {
	a := &http.Request{RemoteAddr: "[2001:db8:1:2:aaaa::1]:443"}
	b := &http.Request{RemoteAddr: "[2001:db8:1:2:bbbb::9]:443"}
	c := &http.Request{RemoteAddr: "[2001:db8:1:3::1]:443"}
	if clientAddr(a) != clientAddr(b) || clientAddr(a) == clientAddr(c) {
		t.Fatalf("clientAddr: %s %s %s", clientAddr(a), clientAddr(b), clientAddr(c))
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
