package gallery

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

const (
	orgA, orgB = "org-a", "org-b"
	publicURL  = "http://clipperd.test"
)

// testClock is a clock tests move by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is a gallery over a fresh store with a key in each of two orgs.
type env struct {
	h          http.Handler
	st         *store.Store
	clock      *testClock
	keyA, keyB string
	sessionTTL time.Duration
	remoteAddr string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	clock := &testClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	st.SetClock(clock.now)
	e := &env{st: st, clock: clock, sessionTTL: time.Hour, remoteAddr: "192.0.2.1:1234"}
	if e.keyA, err = st.CreateKey(ctx, orgA, "alice"); err != nil {
		t.Fatal(err)
	}
	if e.keyB, err = st.CreateKey(ctx, orgB, "bob"); err != nil {
		t.Fatal(err)
	}
	e.h, err = New(Config{Store: st, PublicURL: publicURL, SessionTTL: e.sessionTTL, Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// do sends a request with the cookie (nil: none).
func (e *env) do(t *testing.T, method, path string, body url.Values, cookie *http.Cookie) *httptest.ResponseRecorder {
	t.Helper()
	var req *http.Request
	if body != nil {
		req = httptest.NewRequest(method, path, strings.NewReader(body.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, path, nil)
	}
	req.RemoteAddr = e.remoteAddr
	if cookie != nil {
		req.AddCookie(cookie)
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec
}

func (e *env) get(t *testing.T, path string, cookie *http.Cookie) *httptest.ResponseRecorder {
	t.Helper()
	return e.do(t, http.MethodGet, path, nil, cookie)
}

// login posts key to the form and returns the session cookie it set.
func (e *env) login(t *testing.T, key string) *http.Cookie {
	t.Helper()
	rec := e.do(t, http.MethodPost, "/ui/login", url.Values{"api_key": {key}}, nil)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/ui/" {
		t.Fatalf("login: %d to %q, want 303 to /ui/; body %s", rec.Code, rec.Header().Get("Location"), rec.Body)
	}
	c := sessionCookie(rec)
	if c == nil || c.Value == "" {
		t.Fatalf("login set no %s cookie: %v", SessionCookie, rec.Result().Cookies())
	}
	return c
}

func sessionCookie(rec *httptest.ResponseRecorder) *http.Cookie {
	for _, c := range rec.Result().Cookies() {
		if c.Name == SessionCookie || c.Name == SecureSessionCookie {
			return c
		}
	}
	return nil
}

// project stores a project of org made now with the given title and
// preferences; the clock then moves a second, so projects are ordered.
func (e *env) project(t *testing.T, org, title string, mutate func(*store.Project)) *store.Project {
	t.Helper()
	req := &apitypes.CreateProjectRequest{
		VideoURL:     "https://videos.example.com/talks/keynote.mp4",
		CurationPref: &apitypes.CurationPref{Model: apitypes.ModelClipBasic},
	}
	if title != "" {
		req.UploadedVideoAttr = &apitypes.UploadedVideoAttr{Title: title}
	}
	p := store.NewProject(store.Key{OrgID: org, UserID: "u"}, req, "YOUTUBE", "src", e.clock.now())
	if mutate != nil {
		mutate(p)
	}
	if err := e.st.CreateProject(context.Background(), p, store.Admission{Reserve: 10}); err != nil {
		t.Fatal(err)
	}
	e.clock.advance(time.Second)
	return p
}

// clips gives p clips named by titles, each with media addresses.
func (e *env) clips(t *testing.T, p *store.Project, titles ...string) []store.Clip {
	t.Helper()
	var clips []store.Clip
	for i, title := range titles {
		id := "c" + string(rune('1'+i))
		clips = append(clips, store.Clip{
			ID: p.ID + "." + id, CurationID: id, Title: title, Description: "about " + title, Text: "the words of " + title,
			Hashtags: "#talk #clip" + id, TimeRanges: [][2]int64{{int64(i) * 65000, int64(i)*65000 + 30500}},
			URIForPreview: publicURL + "/media/" + p.ID + "/" + id + ".preview.mp4",
			URIForExport:  publicURL + "/media/" + p.ID + "/" + id + ".mp4",
		})
	}
	if err := e.st.ReplaceClips(context.Background(), p.ID, p.OrgID, clips); err != nil {
		t.Fatal(err)
	}
	for i := range clips {
		clips[i].ProjectID, clips[i].OrgID = p.ID, p.OrgID
	}
	return clips
}

// wantStatus fails unless rec has status code.
func wantStatus(t *testing.T, rec *httptest.ResponseRecorder, code int) {
	t.Helper()
	if rec.Code != code {
		t.Fatalf("status %d, want %d; body:\n%s", rec.Code, code, rec.Body)
	}
}

// wantToLogin fails unless rec is a 303 to the login form.
func wantToLogin(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/ui/login" {
		t.Fatalf("got %d to %q, want 303 to /ui/login", rec.Code, rec.Header().Get("Location"))
	}
}
