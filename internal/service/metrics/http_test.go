package metrics

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/reqlog"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// publicHandler is shaped like clipperd's: API routes on a mux, a gallery
// on a mux of its own mounted under /ui/, a catch-all redirect.
func publicHandler() http.Handler {
	gallery := http.NewServeMux()
	gallery.HandleFunc("GET /ui/{$}", func(http.ResponseWriter, *http.Request) {})
	gallery.HandleFunc("GET /ui/projects/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") == "gone" {
			http.NotFound(w, r)
		}
	})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/clip-projects/{id}", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("{}")) })
	mux.HandleFunc("POST /api/clip-projects", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusCreated) })
	mux.Handle("/ui/", gallery)
	mux.Handle("GET /{$}", http.RedirectHandler("/ui/", http.StatusFound))
	return mux
}

// TestObserveRequestLabelsRequestsByPattern: a request is counted under the
// pattern that took it (the innermost mux's), with its status; requests no
// pattern takes are "other"; ids in paths never become labels.
func TestObserveRequestLabelsRequestsByPattern(t *testing.T) {
	m := New(Config{})
	h := reqlog.Handler(slog.New(slog.DiscardHandler), m.ObserveRequest, publicHandler())
	for _, req := range []struct{ method, path string }{
		{http.MethodGet, "/api/clip-projects/prj_1"},
		{http.MethodGet, "/api/clip-projects/prj_2"},
		{http.MethodPost, "/api/clip-projects"},
		{http.MethodGet, "/ui/projects/prj_1"},
		{http.MethodGet, "/ui/projects/gone"},
		{http.MethodGet, "/ui/"},
		{http.MethodGet, "/"},
		{http.MethodGet, "/no/such/route"},
		{http.MethodDelete, "/api/clip-projects"},
		{http.MethodGet, "/ui/nothing-here"},
	} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequestWithContext(t.Context(), req.method, req.path, nil))
	}
	want := map[[2]string]float64{
		{"GET /api/clip-projects/{id}", "200"}: 2,
		{"POST /api/clip-projects", "201"}:     1,
		{"GET /ui/projects/{id}", "200"}:       1,
		{"GET /ui/projects/{id}", "404"}:       1,
		{"GET /ui/{$}", "200"}:                 1,
		{"GET /{$}", "302"}:                    1,
		{"other", "404"}:                       2, // the unknown path, and the gallery's own miss
		{"other", "405"}:                       1,
	}
	for labels, n := range want {
		if got := testutil.ToFloat64(m.requests.WithLabelValues(labels[0], labels[1])); got != n {
			t.Errorf("requests{route=%q, code=%q} = %v, want %v", labels[0], labels[1], got, n)
		}
	}
	if n := testutil.CollectAndCount(m.requests); n != len(want) {
		t.Errorf("%d request series, want %d: a label took something other than a pattern", n, len(want))
	}
	if n := testutil.CollectAndCount(m.latency); n != 6 {
		t.Errorf("%d latency series, want one per route seen (6)", n)
	}
}

// A handler that writes nothing answers 200; an interim 1xx is not the
// status; the writer still reaches the connection's through Unwrap.
func TestStatusWriter(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write func(http.ResponseWriter)
		want  int
	}{
		{"nothing written", func(http.ResponseWriter) {}, 200},
		{"body only", func(w http.ResponseWriter) { _, _ = w.Write([]byte("x")) }, 200},
		{"interim then final", func(w http.ResponseWriter) { w.WriteHeader(http.StatusEarlyHints); w.WriteHeader(http.StatusAccepted) }, 202},
		{"first status wins", func(w http.ResponseWriter) { w.WriteHeader(http.StatusTeapot); w.WriteHeader(http.StatusOK) }, 418},
	} {
		rec := httptest.NewRecorder()
		sw := &reqlog.StatusWriter{ResponseWriter: rec}
		tc.write(sw)
		if sw.Code() != tc.want {
			t.Errorf("%s: code %d, want %d", tc.name, sw.Code(), tc.want)
		}
		if http.ResponseWriter(rec) != sw.Unwrap() {
			t.Errorf("%s: Unwrap does not return the wrapped writer", tc.name)
		}
	}
	if !slices.Contains([]string{otherRoute}, routeOf(httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/x", nil))) {
		t.Error("a request no mux saw is not routed \"other\"")
	}
}
