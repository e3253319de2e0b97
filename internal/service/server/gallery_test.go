package server

import (
	"bytes"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// browser is an HTTP client with cookies that does not follow redirects.
func browser(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func fetch(t *testing.T, cl *http.Client, method, addr string, form url.Values) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(t.Context(), method, addr, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := cl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(data)
}

// loginGallery logs cl in with key.
func loginGallery(t *testing.T, cl *http.Client, srv *Server, key string) {
	t.Helper()
	resp, body := fetch(t, cl, http.MethodPost, srv.URL()+"/ui/login", url.Values{"api_key": {key}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/" {
		t.Fatalf("login: %d to %q: %s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
}

func TestGalleryIsMountedBesideTheAPI(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{})
	cl := browser(t)
	for path, want := range map[string]string{"/": "/ui/", "/ui/": "/ui/login", "/ui": "/ui/"} {
		resp, _ := fetch(t, cl, http.MethodGet, srv.URL()+path, nil)
		if loc := resp.Header.Get("Location"); resp.StatusCode/100 != 3 || loc != want {
			t.Errorf("GET %s: %d to %q, want a redirect to %s", path, resp.StatusCode, loc, want)
		}
	}
	// Everything else is still the API's, with its JSON answers.
	resp, body := fetch(t, cl, http.MethodPost, srv.URL()+"/", nil)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, `"errorName"`) {
		t.Errorf("POST /: %d %s, want the API's JSON 404", resp.StatusCode, body)
	}
	if resp, _ := fetch(t, cl, http.MethodGet, srv.URL()+"/healthz", nil); resp.StatusCode/100 == 3 {
		t.Errorf("GET /healthz redirected")
	}

	loginGallery(t, cl, srv, devKey)
	resp, body = fetch(t, cl, http.MethodGet, srv.URL()+"/ui/", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, DevOrgID) {
		t.Fatalf("GET /ui/ after login: %d %s", resp.StatusCode, body)
	}
	resp, _ = fetch(t, cl, http.MethodPost, srv.URL()+"/ui/logout", url.Values{})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: %d", resp.StatusCode)
	}
	if resp, _ := fetch(t, cl, http.MethodGet, srv.URL()+"/ui/", nil); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("GET /ui/ after logout: %d, want 303 to the login", resp.StatusCode)
	}
}

var previewSrc = regexp.MustCompile(`<video class="clip-preview"[^>]* src="([^"]+)"`)

// TestGalleryServesAFinishedProjectsClips runs a project to COMPLETE and
// checks that the gallery's player points at the preview the API hands
// out, and that the server plays it.
func TestGalleryServesAFinishedProjectsClips(t *testing.T) {
	t.Parallel()
	video := sourceVideo(t)
	srv := startServer(t, Config{})
	c := newClient(t, srv, devKey)
	projects, _ := c.finishedProjects(video, [2]int{0, 12})
	p := projects[0]
	clips := c.clips(p.ID)

	cl := browser(t)
	loginGallery(t, cl, srv, devKey)
	resp, body := fetch(t, cl, http.MethodGet, srv.URL()+"/ui/projects/"+p.ID, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("project page: %d %s", resp.StatusCode, body)
	}
	srcs := previewSrc.FindAllStringSubmatch(body, -1)
	if len(srcs) != len(clips) {
		t.Fatalf("%d players for %d clips:\n%s", len(srcs), len(clips), body)
	}
	for i, m := range srcs {
		// Path-only, so it plays whatever name the browser reached the
		// server by.
		src := html.UnescapeString(m[1])
		if srv.URL()+src != clips[i].URIForPreview {
			t.Errorf("player %d plays %s, the API hands out %s", i, src, clips[i].URIForPreview)
		}
		resp, data := fetch(t, cl, http.MethodGet, srv.URL()+src, nil)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "video/mp4" || len(data) == 0 {
			t.Errorf("preview %s: %d %q, %d bytes", src, resp.StatusCode, resp.Header.Get("Content-Type"), len(data))
		}
	}
	// The list shows it complete, with its clips.
	_, body = fetch(t, cl, http.MethodGet, srv.URL()+"/ui/", nil)
	if !strings.Contains(body, `href="/ui/projects/`+p.ID+`"`) || !strings.Contains(body, `<span class="stage">COMPLETE</span>`) {
		t.Errorf("projects page:\n%s", body)
	}
}

// syncBuffer is a log sink the server's goroutines may write at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestGalleryAndAPIRequestsAreLoggedOnceEach(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	srv := startServer(t, Config{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	cl := browser(t)
	fetch(t, cl, http.MethodGet, srv.URL()+"/ui/logout", nil)
	fetch(t, cl, http.MethodGet, srv.URL()+"/api/clip-projects/p1", nil)
	lines := logs.String()
	for _, want := range []string{"method=GET path=/ui/logout status=405", "method=GET path=/api/clip-projects/p1 status=401"} {
		if n := strings.Count(lines, want); n != 1 {
			t.Errorf("%q logged %d times, want once:\n%s", want, n, lines)
		}
	}
}
