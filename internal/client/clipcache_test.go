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

// readCensor reads censor job id's status, as a censor job resource does.
func readCensor(t *testing.T, c *Client, id string) {
	t.Helper()
	if _, err := c.GetCensorJob(t.Context(), id); err != nil {
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
	if n := cs.count(); n != 1 {
		t.Fatalf("listings %d, want 1", n)
	}
}

// A project not seen COMPLETE is listed every time: its clips may change.
func TestProjectInFlightIsNotCached(t *testing.T) {
	cs := &clipService{stage: apitypes.StageRender}
	c := clipTest(t, cs)
	listP1(t, c)
	listP1(t, c)
	if n := cs.count(); n != 2 {
		t.Fatalf("listings %d, want 2", n)
	}
}

// Creating a censor job drops the project's listing and keeps it uncached
// until the job is seen to end, which drops it again.
func TestCensorJobInvalidatesTheListing(t *testing.T) {
	cs := &clipService{stage: apitypes.StageComplete, censor: apitypes.CensorProcessing}
	c := clipTest(t, cs)
	ctx := t.Context()
	listP1(t, c)
	if _, err := c.CreateCensorJob(ctx, apitypes.CensorJobRequest{ProjectID: "p1", ClipID: "c1"}); err != nil {
		t.Fatal(err)
	}
	listP1(t, c) // the job runs: listed anew, not kept
	readCensor(t, c, "cj1")
	listP1(t, c)
	cs.set(func(cs *clipService) { cs.censor = apitypes.CensorConcluded })
	readCensor(t, c, "cj1")
	listP1(t, c) // the censored clip: listed once more, then kept
	listP1(t, c)
	if n := cs.count(); n != 4 {
		t.Fatalf("listings %d, want 4 (before, twice during, once after the job)", n)
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
	if n := cs.count(); n != 2 {
		t.Fatalf("listings %d, want 2 (before the change, once after)", n)
	}
}

// The end of a censor job this process did not create drops every listing.
func TestForeignCensorJobEndDropsListings(t *testing.T) {
	cs := &clipService{stage: apitypes.StageComplete, censor: apitypes.CensorConcluded}
	c := clipTest(t, cs)
	listP1(t, c)
	readCensor(t, c, "cj-other")
	listP1(t, c)
	readCensor(t, c, "cj-other") // once per job
	listP1(t, c)
	if n := cs.count(); n != 2 {
		t.Fatalf("listings %d, want 2", n)
	}
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
	if n := cs.count(); n != 2 {
		t.Fatalf("listings %d, want 2 (the one in progress, once after the change)", n)
	}
}
