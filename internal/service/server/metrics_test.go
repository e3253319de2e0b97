package server

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/api"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/gallery"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/metrics/metricstest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/outbound"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/outbound/webhooktest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/pipeline"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/publish"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// TestMetricsAfterAProjectCompletes: after a project completes (with a
// webhook), a post is published, and a create is refused for the concurrent
// cap, a scrape of the metrics listener shows each of them counted, from
// the hooks and from the store. The API listener does not serve /metrics,
// and the scrape holds no key, id or URL.
func TestMetricsAfterAProjectCompletes(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{MetricsListen: "127.0.0.1:0", AllowPrivateImports: true, AllowPrivateWebhooks: true,
		Limits: quota.Limits{MaxConcurrent: 1}})
	if srv.MetricsAddr() == "" || strings.HasSuffix(srv.MetricsAddr(), ":0") {
		t.Fatalf("MetricsAddr() = %q, want the address listened on", srv.MetricsAddr())
	}
	hangs := hangingSource(t)
	receiver := webhooktest.New(t, 0)
	c := newClient(t, srv, devKey)

	upload := c.uploadFile(sourceVideo(t), 1<<20)
	p := c.mustCreate(map[string]any{
		"videoUrl":          upload,
		"curationPref":      map[string]any{"range": map[string]any{"startSec": 0, "endSec": 12}, "clipDurations": [][]float64{{4, 10}}},
		"conclusionActions": []map[string]any{{"type": "WEBHOOK", "url": receiver.URL + "/done"}},
	})
	c.waitStage(p.ID, pipelineTimeout, apitypes.StageComplete)
	clip := c.clips(p.ID)[0]
	twitter := connect(t, srv, DevOrgID, "TWITTER", "")
	resp, data := c.do(http.MethodPost, "/api/post-tasks", postBody(p.ID, clip.CurationID, twitter))
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		t.Fatalf("post task: %d %s", resp.StatusCode, data)
	}
	resp, data = c.do(http.MethodPost, "/api/social-copy-jobs", apitypes.SocialCopyJobRequest{ProjectID: p.ID, ClipID: clip.CurationID,
		PostAccountID: twitter})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("copy job: %d %s", resp.StatusCode, data)
	}
	// A project that never finishes importing holds the one slot: the next is refused.
	busy := c.mustCreate(map[string]any{"videoUrl": hangs + "/v.mp4"})
	resp, data = c.create(map[string]any{"videoUrl": hangs + "/w.mp4"})
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a second project in flight: %d %s, want 429", resp.StatusCode, data)
	}

	url := "http://" + srv.MetricsAddr() + "/metrics"
	// The deliveries are counted by background workers: scrape until they are.
	s := scrapeUntil(t, url, func(s metricstest.Scrape) bool {
		delivered, _ := s.Value("clipperd_action_delivery_attempts_total", "kind", "webhook", "outcome", "delivered")
		published, _ := s.Value("clipperd_publish_attempts_total", "destination", "dir", "outcome", "delivered")
		copied, _ := s.Value("clipperd_jobs", "queue", "copy", "state", "completed")
		return delivered >= 1 && published >= 1 && copied >= 1
	})
	for _, w := range []struct {
		name   string
		labels []string
		min    float64
	}{
		{"clipperd_http_requests_total", []string{"route", "POST /api/clip-projects", "code", "201"}, 2},
		{"clipperd_http_requests_total", []string{"route", "POST /api/clip-projects", "code", "429"}, 1},
		{"clipperd_http_requests_total", []string{"route", "GET /api/clip-projects/{id}", "code", "200"}, 1},
		{"clipperd_http_requests_total", []string{"route", "PUT /storage/sessions/{sessionId}", "code", "200"}, 1},
		{"clipperd_http_request_duration_seconds", []string{"route", "GET /api/clip-projects/{id}"}, 1},
		{"clipperd_throttled_requests_total", []string{"reason", "concurrent"}, 1},
		{"clipperd_projects", []string{"stage", "COMPLETE"}, 1},
		{"clipperd_pipeline_stage_duration_seconds", []string{"stage", "RENDER"}, 1},
		{"clipperd_pipeline_stage_duration_seconds", []string{"stage", "QUEUED"}, 1},
		{"clipperd_first_clip_seconds", nil, 1},
		{"clipperd_credits_used", nil, 1},
		{"clipperd_storage_bytes", []string{"kind", "projects"}, 1},
	} {
		if got, ok := s.Value(w.name, w.labels...); !ok || got < w.min {
			t.Errorf("%s%v = %v (present %v), want at least %v", w.name, w.labels, got, ok, w.min)
		}
	}
	for _, route := range s.LabelValues("clipperd_http_requests_total", "route") {
		if strings.Contains(route, "prj_") || strings.Contains(route, "up_") {
			t.Errorf("route label %q holds an id, not a pattern", route)
		}
	}
	for _, secret := range []string{devKey, p.ID, busy.ID, upload, receiver.URL, hangs} {
		if strings.Contains(s.Raw, secret) {
			t.Errorf("the scrape holds %q", secret)
		}
	}

	// Not on the public listener, with or without a key.
	for _, key := range []string{"", devKey} {
		resp, data := newClient(t, srv, key).do(http.MethodGet, "/metrics", nil)
		if resp.StatusCode != http.StatusNotFound || strings.Contains(string(data), "clipperd_") {
			t.Errorf("GET /metrics on the API listener (key %v): %d %s, want 404", key != "", resp.StatusCode, data)
		}
	}
}

// TestNoMetricsListenerUnlessAsked: without MetricsListen (in-process
// tests, the acceptance harness) no metrics listener is started.
func TestNoMetricsListenerUnlessAsked(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{})
	if addr := srv.MetricsAddr(); addr != "" {
		t.Errorf("MetricsAddr() = %q without MetricsListen, want \"\"", addr)
	}
}

// TestMetricsListenBusyFailsStart: a metrics address another process holds
// is a start error naming it, as a busy API address is.
func TestMetricsListenBusyFailsStart(t *testing.T) {
	t.Parallel()
	first := startServer(t, Config{MetricsListen: "127.0.0.1:0"})
	_, err := Start(t.Context(), Config{DataDir: t.TempDir(), Listen: "127.0.0.1:0", MetricsListen: first.MetricsAddr()})
	if err == nil || !strings.Contains(err.Error(), first.MetricsAddr()) {
		t.Fatalf("Start on a busy metrics address: %v, want an error naming %s", err, first.MetricsAddr())
	}
}

// scrapeUntil scrapes url until done holds, and returns that scrape.
func scrapeUntil(t *testing.T, url string, done func(metricstest.Scrape) bool) metricstest.Scrape {
	t.Helper()
	deadline := time.Now().Add(publishWait)
	for {
		s := metricstest.Get(t, url)
		if done(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("the metrics did not get there in %s:\n%s", publishWait, grepLines(s.Raw, "clipperd_"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// grepLines is the lines of text that start with prefix.
func grepLines(text, prefix string) string {
	lines := slices.DeleteFunc(strings.Split(text, "\n"), func(l string) bool { return !strings.HasPrefix(l, prefix) })
	return strings.Join(lines, "\n")
}

// TestMissesAreCountedAsOther: requests that no route takes (the API's JSON
// 404 and 405, the gallery's 404 page) are counted under route "other",
// not under the catch-all patterns ("/", "/ui/") that passed them on.
func TestMissesAreCountedAsOther(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{MetricsListen: "127.0.0.1:0"})
	c := newClient(t, srv, devKey)
	for _, req := range []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, "/api/no-such-endpoint", http.StatusNotFound},
		{http.MethodDelete, "/api/clip-projects", http.StatusMethodNotAllowed},
	} {
		if resp, data := c.do(req.method, req.path, nil); resp.StatusCode != req.want {
			t.Fatalf("%s %s: %d %s, want %d", req.method, req.path, resp.StatusCode, data, req.want)
		}
	}
	cl := browser(t)
	loginGallery(t, cl, srv, devKey)
	if resp, body := fetch(t, cl, http.MethodGet, srv.URL()+"/ui/no-such-page", nil); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("an unknown gallery page: %d %s, want 404", resp.StatusCode, body)
	}

	s := metricstest.Get(t, "http://"+srv.MetricsAddr()+"/metrics")
	for _, w := range []struct {
		code string
		min  float64
	}{{"404", 2}, {"405", 1}} {
		if got, _ := s.Value("clipperd_http_requests_total", "route", "other", "code", w.code); got < w.min {
			t.Errorf("requests{route=other, code=%s} = %v, want at least %v\n%s", w.code, got, w.min, grepLines(s.Raw, "clipperd_http_requests_total"))
		}
	}
	for _, route := range s.LabelValues("clipperd_http_requests_total", "route") {
		if route == "/" || route == "/ui/" {
			t.Errorf("a miss counted under the catch-all route %q:\n%s", route, grepLines(s.Raw, "clipperd_http_requests_total"))
		}
	}
}

// TestGalleryLoginThrottlingIsCounted: the gallery's 429 for too many
// failed logins is counted as throttled with reason "login".
func TestGalleryLoginThrottlingIsCounted(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{MetricsListen: "127.0.0.1:0"})
	cl := browser(t)
	throttled := false
	for range 20 {
		resp, _ := fetch(t, cl, http.MethodPost, srv.URL()+"/ui/login", url.Values{"api_key": {"wrong"}})
		if resp.StatusCode == http.StatusTooManyRequests {
			throttled = true
			break
		}
	}
	if !throttled {
		t.Fatal("20 failed logins were never answered 429")
	}
	s := metricstest.Get(t, "http://"+srv.MetricsAddr()+"/metrics")
	if got, _ := s.Value("clipperd_throttled_requests_total", "reason", gallery.ThrottledLogin); got != 1 {
		t.Errorf("throttled{reason=%q} = %v, want 1\n%s", gallery.ThrottledLogin, got, grepLines(s.Raw, "clipperd_throttled"))
	}
}

// TestFixedSeriesExistFromTheStart: the counters whose labels come from
// fixed lists have every combination at 0 before anything happened, so a
// rate or an alert over them has a series to read from the start.
func TestFixedSeriesExistFromTheStart(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{MetricsListen: "127.0.0.1:0"})
	s := metricstest.Get(t, "http://"+srv.MetricsAddr()+"/metrics")
	outcomes := []string{outbound.OutcomeDelivered, outbound.OutcomeWillRetry, outbound.OutcomeGaveUp}
	var want [][]string
	for _, reason := range []string{api.ThrottledRate, api.ThrottledPostRate, api.ThrottledConcurrent, gallery.ThrottledLogin, api.ThrottledAuth} {
		want = append(want, []string{"clipperd_throttled_requests_total", "reason", reason})
	}
	for _, outcome := range outcomes {
		for _, kind := range []string{apitypes.ActionWebhook, apitypes.ActionEmail} {
			want = append(want, []string{"clipperd_action_delivery_attempts_total", "kind", strings.ToLower(kind), "outcome", outcome})
		}
		for _, dest := range []string{publish.Destination(store.PublishToDir), publish.Destination("webhook:https://example.com/hook")} {
			want = append(want, []string{"clipperd_publish_attempts_total", "destination", dest, "outcome", outcome})
		}
	}
	for _, kind := range []string{pipeline.PieceTranscribe, pipeline.PieceRender} {
		for _, state := range []store.PieceState{store.PiecePending, store.PieceRunning, store.PieceDone, store.PieceFailed} {
			want = append(want, []string{"clipperd_pieces", "kind", kind, "state", string(state)})
		}
	}
	for _, w := range want {
		if got, ok := s.Value(w[0], w[1:]...); !ok || got != 0 {
			t.Errorf("%s%v = %v (present %v), want present at 0", w[0], w[1:], got, ok)
		}
	}
}
