package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

func (s *slotPool) hasRefusedWaiters() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.refusedWaiters) > 0
}

// settledWaiting waits until every goroutine of the test's synctest bubble
// is blocked and returns how many creates then wait for a slot: exact,
// where a poll could only say "at least one by now".
func (s *slotPool) settledWaiting() int {
	synctest.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiting
}

// newCapClient is a capService of limit and a client of it, served in
// process, for a test in a synctest bubble.
func newCapClient(t *testing.T, limit int, mod func(*Config)) (*capService, *Client) {
	t.Helper()
	cs := &capService{cap: limit, running: map[string]bool{}, creates: make(chan string, 100)}
	c := newTestClient(t, "http://clipperd.test", func(cfg *Config) {
		cfg.HTTPClient = inProcess(http.HandlerFunc(cs.serve))
		if mod != nil {
			mod(cfg)
		}
	})
	return cs, c
}

func (s *slotPool) state() (limit, inUse int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.limit, s.pending + len(s.held)
}

// capService is a service with a concurrent-project cap: a create over the
// cap is refused with 429 X-Cap-Reason: concurrent; a project runs until the
// test finishes it. external counts projects of other processes in flight.
type capService struct {
	mu       sync.Mutex
	cap      int
	external int
	next     int
	running  map[string]bool
	refused  int
	rejectBy string // a videoUrl answered 400
	creates  chan string
}

func newCapService(limit int) (*capService, *httptest.Server) {
	cs := &capService{cap: limit, running: map[string]bool{}, creates: make(chan string, 100)}
	return cs, httptest.NewServer(http.HandlerFunc(cs.serve))
}

func (cs *capService) serve(w http.ResponseWriter, r *http.Request) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if r.Method == http.MethodGet {
		id := strings.TrimPrefix(r.URL.Path, "/api/clip-projects/")
		stage := apitypes.StageComplete
		if cs.running[id] {
			stage = apitypes.StageRender
		}
		writeJSON(w, 200, apitypes.Project{ID: id, Stage: stage})
		return
	}
	var req apitypes.CreateProjectRequest
	_ = unmarshalBody(r, &req)
	if req.VideoURL == cs.rejectBy {
		writeJSON(w, 400, apitypes.ErrorBody{ErrorName: "Bad Request", ErrorMessage: strPtr("videoUrl: unknown upload")})
		return
	}
	inFlight := cs.external
	for _, run := range cs.running {
		if run {
			inFlight++
		}
	}
	if inFlight >= cs.cap {
		cs.refused++
		w.Header().Set(apitypes.HeaderCapReason, apitypes.CapReasonConcurrent)
		writeJSON(w, 429, apitypes.ErrorBody{ErrorName: "TooManyRequests"})
		return
	}
	cs.next++
	id := fmt.Sprintf("p%d", cs.next)
	cs.running[id] = true
	cs.creates <- id
	writeJSON(w, 201, apitypes.Project{ID: id, Stage: apitypes.StageQueued})
}

func (cs *capService) finish(id string) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.running[id] = false
}

func (cs *capService) refusals() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.refused
}

func unmarshalBody(r *http.Request, v any) error {
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := r.Body.Read(buf)
		b.WriteString(string(buf[:n]))
		if err != nil {
			break
		}
	}
	return unmarshal([]byte(b.String()), v)
}

func strPtr(s string) *string { return &s }

// createAsync starts a create and reports its project id or error.
func createAsync(ctx context.Context, c *Client) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := c.CreateProject(ctx, apitypes.CreateProjectRequest{VideoURL: "u"})
		done <- err
	}()
	return done
}

// With the cap known, a create beyond it waits in the process for one of its
// projects to be seen finished, and the service never refuses one.
func TestCreateWaitsForAFreeSlotInsteadOfBeingRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cs, c := newCapClient(t, 2, func(cfg *Config) { cfg.MaxConcurrentProjects = 2 })
		ctx := t.Context()
		for range 2 {
			if _, err := c.CreateProject(ctx, apitypes.CreateProjectRequest{VideoURL: "u"}); err != nil {
				t.Fatal(err)
			}
		}
		third := createAsync(ctx, c)
		if n := c.slots.settledWaiting(); n != 1 {
			t.Fatalf("%d creates wait for a slot, want the third", n)
		}
		if n := len(cs.creates); n != 2 {
			t.Fatalf("the service saw %d creates while both slots were held, want 2", n)
		}
		cs.finish("p1")
		// A wait (or any read) seeing p1 COMPLETE frees its slot.
		if _, err := c.WaitForProject(ctx, "p1", fastWait); err != nil {
			t.Fatal(err)
		}
		if err := <-third; err != nil {
			t.Fatalf("third create: %v", err)
		}
		if n := cs.refusals(); n != 0 {
			t.Fatalf("the service refused %d creates, want 0", n)
		}
		if got := c.Stats().Concurrent429; got != 0 {
			t.Fatalf("Concurrent429 = %d", got)
		}
	})
}

// A create the service rejects gives its slot back at once.
func TestRejectedCreateFreesItsSlot(t *testing.T) {
	cs, srv := newCapService(1)
	defer srv.Close()
	cs.rejectBy = "bad"
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.MaxConcurrentProjects = 1 })
	_, err := c.CreateProject(t.Context(), apitypes.CreateProjectRequest{VideoURL: "bad"})
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != 400 {
		t.Fatalf("want the 400, got %v", err)
	}
	if _, inUse := c.slots.state(); inUse != 0 {
		t.Fatalf("slots in use after a rejected create: %d", inUse)
	}
	if _, err := c.CreateProject(t.Context(), apitypes.CreateProjectRequest{VideoURL: "u"}); err != nil {
		t.Fatalf("create after the rejected one: %v", err)
	}
}

// Waiting for a slot ends with the caller's context.
func TestSlotWaitRespectsTheContext(t *testing.T) {
	_, srv := newCapService(1)
	defer srv.Close()
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.MaxConcurrentProjects = 1 })
	p, err := c.CreateProject(t.Context(), apitypes.CreateProjectRequest{VideoURL: "u"})
	if err != nil {
		t.Fatal(err)
	}
	unwatch := c.slots.watch(p.ID) // a wait polls it: the create has nothing to ask
	defer unwatch()
	ctx, cancel := context.WithCancel(t.Context())
	done := createAsync(ctx, c)
	cancel()
	err = <-done
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "concurrent-project slots") {
		t.Fatalf("want a cancelled slot wait, got %v", err)
	}
	if _, inUse := c.slots.state(); inUse != 1 {
		t.Fatalf("slots in use %d, want the first project's only", inUse)
	}
}

// Projects of other processes fill the service's cap: the first refusal
// teaches the pool how many slots are left to this process, the refused
// create goes through when one of this process's projects ends, and the
// next create waits locally instead of being refused again.
func TestConcurrentRefusalTeachesTheCapLeft(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cs, c := newCapClient(t, 3, nil) // believes 4 slots
		cs.external = 1
		c.policy.capBase, c.policy.capMax = time.Hour, time.Hour
		ctx := t.Context()
		for range 2 {
			if _, err := c.CreateProject(ctx, apitypes.CreateProjectRequest{VideoURL: "u"}); err != nil {
				t.Fatal(err)
			}
		}
		third := createAsync(ctx, c)
		if synctest.Wait(); !c.slots.hasRefusedWaiters() {
			t.Fatal("the third create was not refused and waiting")
		}
		if limit, _ := c.slots.state(); limit != 2 {
			t.Fatalf("learned limit %d, want 2 (this process's projects in flight)", limit)
		}
		fourth := createAsync(ctx, c)
		if n := c.slots.settledWaiting(); n != 1 {
			t.Fatalf("%d creates wait for a slot, want the fourth", n)
		}
		cs.finish("p1")
		if _, err := c.GetProject(ctx, "p1"); err != nil {
			t.Fatal(err)
		}
		if err := <-third; err != nil {
			t.Fatalf("refused create after a slot freed: %v", err)
		}
		if n := c.slots.settledWaiting(); n != 1 { // the learned cap is full again
			t.Fatalf("%d creates wait for a slot, want the fourth", n)
		}
		if n := len(cs.creates); n != 3 {
			t.Fatalf("the service made %d projects, want 3", n)
		}
		cs.finish("p2")
		if _, err := c.GetProject(ctx, "p2"); err != nil {
			t.Fatal(err)
		}
		if err := <-fourth; err != nil {
			t.Fatal(err)
		}
		if n := cs.refusals(); n != 1 {
			t.Fatalf("refusals %d, want only the first", n)
		}
	})
}

// A project nobody waits for (created without waiting for completion) still
// frees its slot: a create waiting for it asks the service about it.
func TestSlotWaitAsksAboutProjectsNobodyWatches(t *testing.T) {
	cs, srv := newCapService(1)
	defer srv.Close()
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.MaxConcurrentProjects = 1 })
	if _, err := c.CreateProject(t.Context(), apitypes.CreateProjectRequest{VideoURL: "u"}); err != nil {
		t.Fatal(err)
	}
	cs.finish("p1")
	if _, err := c.CreateProject(t.Context(), apitypes.CreateProjectRequest{VideoURL: "u"}); err != nil {
		t.Fatalf("second create: %v", err)
	}
	if n := cs.refusals(); n != 0 {
		t.Fatalf("refusals %d", n)
	}
}

// A create that found the slots held by a project nobody watched, and then
// saw a wait start polling it, does not ask about it: the wait will. (A
// batch's waits start a moment after their creates answer; in the
// 20-project benchmark two waiting creates each read a watched project 30 s
// later, two calls for nothing.)
func TestSlotWaitLeavesAProjectWatchedMeanwhile(t *testing.T) {
	// In a bubble the probe's times are exact: the create probes p1 at
	// probeAfter, and not at all while p1 is watched.
	synctest.Test(t, func(t *testing.T) {
		cs := &capService{cap: 1, running: map[string]bool{}, creates: make(chan string, 100)}
		var gets atomic.Int32
		counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				gets.Add(1)
			}
			cs.serve(w, r)
		})
		c := newTestClient(t, "http://clipperd.test", func(cfg *Config) {
			cfg.MaxConcurrentProjects = 1
			cfg.HTTPClient = inProcess(counted)
		})
		const probeAfter = 100 * time.Millisecond
		c.policy.capBase = probeAfter
		p, err := c.CreateProject(t.Context(), apitypes.CreateProjectRequest{VideoURL: "u"})
		if err != nil {
			t.Fatal(err)
		}
		second := createAsync(t.Context(), c)
		synctest.Wait() // the create waits for the slot, its probe set
		unwatch := c.slots.watch(p.ID)
		time.Sleep(3 * probeAfter) // past the probe's time
		if n := gets.Load(); n != 0 {
			t.Fatalf("the waiting create read the watched project %d times, want 0", n)
		}
		unwatch()
		cs.finish(p.ID)
		if err := <-second; err != nil { // unwatched again: the create asks, sees it end and goes
			t.Fatal(err)
		}
	})
}
