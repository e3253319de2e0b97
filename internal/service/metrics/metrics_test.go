package metrics

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/metrics/metricstest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// fakeStats answers Stats with stats, or err.
type fakeStats struct {
	stats store.Stats
	err   error
}

func (f *fakeStats) Stats(context.Context) (store.Stats, error) { return f.stats, f.err }

// fakeJobs answers JobCounts with counts.
type fakeJobs []JobCount

func (f fakeJobs) JobCounts(context.Context) ([]JobCount, error) { return f, nil }

// listen serves m on a free loopback port until the test ends.
func listen(t *testing.T, m *Metrics) *Endpoint {
	t.Helper()
	ep, err := m.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ep.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return ep
}

// TestScrapeReportsTheStoreAndTheHooks: a scrape over the listener holds
// what the store says (every stage, the waiting ones as the queue, credits,
// storage by kind), what the hooks reported, and the Go and process
// collectors' metrics.
func TestScrapeReportsTheStoreAndTheHooks(t *testing.T) {
	src := &fakeStats{stats: store.Stats{
		ProjectsByStage: map[apitypes.Stage]int64{apitypes.StagePending: 1, apitypes.StageQueued: 3, apitypes.StageRender: 2, apitypes.StageComplete: 7},
		CreditsUsed:     42, UploadBytes: 1000, ProjectBytes: 5000,
	}}
	m := New(Config{Stats: src, Jobs: fakeJobs{{Queue: "copy", State: "available", Jobs: 2}, {Queue: "copy", State: "discarded", Jobs: 1}}})
	m.Throttled("rate")
	m.Throttled("concurrent")
	m.Throttled("concurrent")
	m.StageLeft(apitypes.StageRender, 3*time.Second)
	m.ActionAttempt(apitypes.ActionWebhook, "will_retry")
	m.ActionAttempt(apitypes.ActionWebhook, "delivered")
	m.PublishAttempt("dir", "gave_up")

	s := metricstest.Get(t, "http://"+listen(t, m).Addr()+"/metrics")
	want := []struct {
		name   string
		labels []string
		v      float64
	}{
		{"clipperd_projects", []string{"stage", "QUEUED"}, 3},
		{"clipperd_projects", []string{"stage", "COMPLETE"}, 7},
		{"clipperd_projects", []string{"stage", "STALLED"}, 0},
		{"clipperd_pipeline_queue_depth", nil, 4},
		{"clipperd_credits_used", nil, 42},
		{"clipperd_storage_bytes", []string{"kind", "uploads"}, 1000},
		{"clipperd_storage_bytes", []string{"kind", "projects"}, 5000},
		{"clipperd_throttled_requests_total", []string{"reason", "rate"}, 1},
		{"clipperd_throttled_requests_total", []string{"reason", "concurrent"}, 2},
		{"clipperd_pipeline_stage_duration_seconds", []string{"stage", "RENDER"}, 1},
		{"clipperd_pipeline_stage_duration_seconds", []string{"stage", "IMPORT"}, 0},
		{"clipperd_action_delivery_attempts_total", []string{"kind", "webhook", "outcome", "will_retry"}, 1},
		{"clipperd_action_delivery_attempts_total", []string{"kind", "webhook", "outcome", "delivered"}, 1},
		{"clipperd_publish_attempts_total", []string{"destination", "dir", "outcome", "gave_up"}, 1},
		{"clipperd_jobs", []string{"queue", "copy", "state", "available"}, 2},
		{"clipperd_jobs", []string{"queue", "copy", "state", "discarded"}, 1},
	}
	for _, w := range want {
		if got, ok := s.Value(w.name, w.labels...); !ok || got != w.v {
			t.Errorf("%s%v = %v (present %v), want %v", w.name, w.labels, got, ok, w.v)
		}
	}
	if n := len(s.LabelValues("clipperd_projects", "stage")); n != len(apitypes.Stages()) {
		t.Errorf("%d stages in clipperd_projects, want every stage (%d)", n, len(apitypes.Stages()))
	}
	for _, name := range []string{"go_goroutines", "process_start_time_seconds"} {
		if _, ok := s.Value(name); !ok {
			t.Errorf("%s missing: the Go and process collectors are not registered", name)
		}
	}
}

// A store that cannot be read leaves its metrics out of the scrape, which
// still answers with the others and counts the failure.
func TestScrapeWithoutTheStore(t *testing.T) {
	m := New(Config{Stats: &fakeStats{err: errors.New("database is locked")}})
	m.Throttled("rate")
	url := "http://" + listen(t, m).Addr() + "/metrics"
	s := metricstest.Get(t, url)
	if _, ok := s.Value("clipperd_projects"); ok {
		t.Error("clipperd_projects served without a store")
	}
	if v, ok := s.Value("clipperd_throttled_requests_total", "reason", "rate"); !ok || v != 1 {
		t.Errorf("throttled = %v, %v; want the hooks' metrics served anyway", v, ok)
	}
	if v, _ := metricstest.Get(t, url).Value("clipperd_metrics_scrape_errors_total"); v < 1 {
		t.Errorf("scrape errors = %v, want the failed read counted", v)
	}
}

// The listener serves GET /metrics only.
func TestListenerServesOnlyMetrics(t *testing.T) {
	base := "http://" + listen(t, New(Config{})).Addr()
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, "/metrics", http.StatusOK},
		{http.MethodGet, "/", http.StatusNotFound},
		{http.MethodGet, "/api/clip-projects", http.StatusNotFound},
		{http.MethodPost, "/metrics", http.StatusMethodNotAllowed},
	} {
		req, err := http.NewRequestWithContext(t.Context(), tc.method, base+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, resp.StatusCode, tc.want)
		}
	}
}

// Listening on a busy address fails, naming it.
func TestListenOnABusyAddress(t *testing.T) {
	ep := listen(t, New(Config{}))
	if _, err := New(Config{}).Listen(ep.Addr()); err == nil {
		t.Fatalf("a second listener on %s: no error", ep.Addr())
	}
}

// Before any project, the stage histogram has a series for each stage a
// run leaves, and none for the others.
func TestStageSeriesBeforeAnyProject(t *testing.T) {
	s := metricstest.Get(t, "http://"+listen(t, New(Config{})).Addr()+"/metrics")
	got := s.LabelValues("clipperd_pipeline_stage_duration_seconds", "stage")
	want := []string{"QUEUED", "IMPORT", "CURATE", "REFINE", "RENDER", "UPLOAD"}
	if !sameSet(got, want) {
		t.Errorf("stage series %v, want %v", got, want)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
