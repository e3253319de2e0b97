package api

import (
	"net/http"
	"testing"
)

// TestMissesAnswerJSON: a path without a route is a JSON 404, a method a
// path has no route for a JSON 405 with the Allow header, with or without a
// key; the mux's redirects to a cleaned path still happen.
func TestMissesAnswerJSON(t *testing.T) {
	t.Parallel()
	st, key := keyedStore(t)
	h := New(Config{Store: st, Media: testMedia(t, t.TempDir()), PublicURL: "http://clipperd.test"})
	cases := []struct {
		method, path, key string
		status            int
		name, msg, allow  string
	}{
		{http.MethodGet, "/api/nope", key, http.StatusNotFound, errNotFound, "no endpoint GET /api/nope", ""},
		{http.MethodGet, "/api/nope", "", http.StatusNotFound, errNotFound, "no endpoint GET /api/nope", ""},
		{http.MethodPost, "/", "", http.StatusNotFound, errNotFound, "no endpoint POST /", ""},
		{http.MethodDelete, "/api/social-copy-jobs/scj_1", key, http.StatusMethodNotAllowed, errMethod,
			"method DELETE is not allowed on /api/social-copy-jobs/scj_1; allowed: GET, HEAD", "GET, HEAD"},
		{http.MethodGet, "/api/social-copy-jobs", key, http.StatusMethodNotAllowed, errMethod,
			"method GET is not allowed on /api/social-copy-jobs; allowed: POST", "POST"},
		{http.MethodPut, "/api/collections", "", http.StatusMethodNotAllowed, errMethod,
			"method PUT is not allowed on /api/collections; allowed: GET, HEAD, POST", "GET, HEAD, POST"},
		{http.MethodPost, "/healthz", "", http.StatusMethodNotAllowed, errMethod, "method POST is not allowed on /healthz", "GET, HEAD"},
		{http.MethodPost, "/media/p1/c1.mp4", "", http.StatusMethodNotAllowed, errMethod, "method POST is not allowed on /media/p1/c1.mp4", "GET, HEAD"},
		{http.MethodGet, "/storage/uploads/u1", "", http.StatusMethodNotAllowed, errMethod, "method GET is not allowed on /storage/uploads/u1", "POST"},
		{http.MethodPatch, "/api/clip-projects/p1", key, http.StatusMethodNotAllowed, errMethod, "method PATCH is not allowed on /api/clip-projects/p1", "GET, HEAD"},
		{http.MethodGet, "/media/p1", "", http.StatusNotFound, errNotFound, "no endpoint GET /media/p1", ""},
		{http.MethodHead, "/api/nope", key, http.StatusNotFound, errNotFound, "no endpoint HEAD /api/nope", ""},
		{"BREW", "/api/collections", key, http.StatusMethodNotAllowed, errMethod, "method BREW is not allowed on /api/collections", "GET, HEAD, POST"},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			rec := send(t, h, c.method, c.path, c.key, "")
			wantAnswer(t, rec, c.status, c.name, c.msg)
			if got := rec.Header().Get("Allow"); got != c.allow {
				t.Errorf("Allow %q, want %q", got, c.allow)
			}
		})
	}

	for path, to := range map[string]string{"/api/nope//x": "/api/nope/x", "/media/../healthz": "/healthz"} {
		rec := send(t, h, http.MethodGet, path, "", "")
		if rec.Code != http.StatusTemporaryRedirect || rec.Header().Get("Location") != to {
			t.Errorf("GET %s: %d to %q, want the mux's 307 to %s", path, rec.Code, rec.Header().Get("Location"), to)
		}
	}
	if rec := send(t, h, http.MethodGet, "/healthz", "", ""); rec.Code != http.StatusOK || rec.Body.String() != "ok" {
		t.Errorf("a route through the wrapper: %d %q", rec.Code, rec.Body)
	}
}
