package client

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// clipService answers a project in a stage the test sets, its clip listing
// (counted), and censor jobs.
type clipService struct {
	mu       sync.Mutex
	stage    apitypes.Stage
	listings int
	censor   string        // status of every censor job
	release  chan struct{} // when set, listings wait for it
}

func (cs *clipService) serve(w http.ResponseWriter, r *http.Request) {
	cs.mu.Lock()
	stage, censor, release := cs.stage, cs.censor, cs.release
	cs.mu.Unlock()
	switch {
	case strings.HasPrefix(r.URL.Path, "/api/clip-projects/"):
		writeJSON(w, 200, apitypes.Project{ID: "p1", Stage: stage})
	case r.URL.Path == "/api/exportable-clips":
		cs.mu.Lock()
		cs.listings++
		cs.mu.Unlock()
		if release != nil {
			<-release
		}
		writeJSON(w, 200, []apitypes.ExportableClip{{ID: "p1.c1"}, {ID: "p1.c2"}})
	case r.Method == http.MethodPost && r.URL.Path == "/api/censor-jobs":
		writeJSON(w, 201, apitypes.CensorJob{JobID: "cj1"})
	default:
		writeJSON(w, 200, apitypes.CensorJobStatus{Status: censor})
	}
}

func (cs *clipService) count() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.listings
}

// want fails t unless the service listed clips n times; why says which.
func (cs *clipService) want(t *testing.T, n int, why string) {
	t.Helper()
	if got := cs.count(); got != n {
		t.Fatalf("listings %d, want %d: %s", got, n, why)
	}
}

func (cs *clipService) set(f func(*clipService)) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	f(cs)
}

// clipTest serves cs and returns a client that has seen project p1 in
// cs's stage.
func clipTest(t *testing.T, cs *clipService) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(cs.serve))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL, nil)
	if _, err := c.GetProject(t.Context(), "p1"); err != nil {
		t.Fatal(err)
	}
	return c
}

// readCensor reads the status of censor job id of project projectID, as a
// censor job resource does.
func readCensor(t *testing.T, c *Client, id, projectID string) {
	t.Helper()
	if _, err := c.GetCensorJob(t.Context(), id, projectID); err != nil {
		t.Fatal(err)
	}
}

func listP1(t *testing.T, c *Client) []apitypes.ExportableClip {
	t.Helper()
	clips, err := c.ListExportableClips(t.Context(), ClipFilter{ProjectID: "p1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(clips) != 2 {
		t.Fatalf("clips %+v", clips)
	}
	return clips
}

// Readers of a COMPLETE project (the resource counting its clips, data
// sources listing them), concurrent or not, and clients of the same Shared
// share one listing; each gets its own copy.
func TestCompleteProjectIsListedOncePerProcess(t *testing.T) {
	cs := &clipService{stage: apitypes.StageComplete, release: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(cs.serve))
	defer srv.Close()
	shared := sharing(new(Shared))
	c := newTestClient(t, srv.URL, shared)
	other := newTestClient(t, srv.URL, shared) // the same Shared, key and org: the same cache
	if _, err := c.GetProject(t.Context(), "p1"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := c
			if i%2 == 1 {
				cl = other
			}
			listP1(t, cl)
		}()
	}
	for cs.count() == 0 {
		runtime.Gosched()
	}
	close(cs.release)
	wg.Wait()
	mine := listP1(t, other)
	mine[0].ID = "changed"
	listP1(t, c) // a reader's change reaches nobody else
	if first := listP1(t, c); first[0].ID != "p1.c1" {
		t.Fatalf("a reader's change leaked into the cache: %+v", first)
	}
	cs.want(t, 1, "one listing for every reader")
}

// A project not seen COMPLETE is listed every time: its clips may change.
func TestProjectInFlightIsNotCached(t *testing.T) {
	cs := &clipService{stage: apitypes.StageRender}
	c := clipTest(t, cs)
	listP1(t, c)
	listP1(t, c)
	cs.want(t, 2, "a project in flight is listed each time")
}

// A censor job followed, one created here or one of another process seen
// in flight, drops the project's listing and keeps it uncached until the
// job is seen to end, which drops it again; its end is learned once.
func TestCensorJobInFlightKeepsTheListingUncached(t *testing.T) {
	for name, start := range map[string]func(t *testing.T, c *Client) string{
		"created here": func(t *testing.T, c *Client) string {
			if _, err := c.CreateCensorJob(t.Context(), apitypes.CensorJobRequest{ProjectID: "p1", ClipID: "c1"}); err != nil {
				t.Fatal(err)
			}
			return "cj1"
		},
		"another process's, seen in flight": func(t *testing.T, c *Client) string {
			readCensor(t, c, "cj-other", "p1")
			return "cj-other"
		},
	} {
		t.Run(name, func(t *testing.T) {
			cs := &clipService{stage: apitypes.StageComplete, censor: apitypes.CensorProcessing}
			c := clipTest(t, cs)
			listP1(t, c)
			job := start(t, c)
			listP1(t, c) // the job runs: listed anew, not kept
			readCensor(t, c, job, "p1")
			listP1(t, c)
			cs.set(func(cs *clipService) { cs.censor = apitypes.CensorConcluded })
			readCensor(t, c, job, "p1")
			listP1(t, c) // the censored clip: listed once more, then kept
			listP1(t, c)
			readCensor(t, c, job, "p1")
			listP1(t, c)
			cs.want(t, 4, "before, twice during, once after the job")
		})
	}
}

// A visibility change drops the listing: the service signs a public
// project's addresses for longer, and a private one's public addresses stop.
func TestVisibilityChangeDropsTheListing(t *testing.T) {
	cs := &clipService{stage: apitypes.StageComplete}
	c := clipTest(t, cs)
	listP1(t, c)
	if _, err := c.UpdateProjectVisibility(t.Context(), "p1", "PUBLIC"); err != nil {
		t.Fatal(err)
	}
	listP1(t, c)
	listP1(t, c)
	cs.want(t, 2, "before the change, once after")
}

// A censor job this process did not create, first seen ended (an earlier
// run's job, read on refresh), drops no listing: censoring changed the
// files behind the addresses, no field of the listing. A refresh reading it
// after the project's clips lists them once.
func TestForeignCensorJobSeenEndedKeepsTheListing(t *testing.T) {
	cs := &clipService{stage: apitypes.StageComplete, censor: apitypes.CensorConcluded}
	c := clipTest(t, cs)
	listP1(t, c)
	readCensor(t, c, "cj-other", "p1")
	readCensor(t, c, "cj-another", "p1")
	listP1(t, c)
	cs.want(t, 1, "the ended job drops nothing")
}

// The end of a censor job whose project the caller does not name drops
// every listing, once per job.
func TestCensorJobOfUnknownProjectDropsListings(t *testing.T) {
	cs := &clipService{stage: apitypes.StageComplete, censor: apitypes.CensorConcluded}
	c := clipTest(t, cs)
	listP1(t, c)
	readCensor(t, c, "cj-other", "")
	listP1(t, c)
	readCensor(t, c, "cj-other", "") // once per job
	listP1(t, c)
	cs.want(t, 2, "once before the job, once after its end")
}

// A listing in progress when the visibility changes is answered to its
// reader but not kept: it may hold addresses signed for the old visibility.
func TestListingInvalidatedInProgressIsNotKept(t *testing.T) {
	cs := &clipService{stage: apitypes.StageComplete, release: make(chan struct{})}
	c := clipTest(t, cs)
	done := make(chan struct{})
	go func() {
		defer close(done)
		listP1(t, c)
	}()
	for cs.count() == 0 {
		runtime.Gosched()
	}
	if _, err := c.UpdateProjectVisibility(t.Context(), "p1", "PUBLIC"); err != nil {
		t.Fatal(err)
	}
	close(cs.release)
	<-done
	listP1(t, c) // listed anew, then kept
	listP1(t, c)
	cs.want(t, 2, "the one in progress, once after the change")
}
