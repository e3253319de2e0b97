package client

import (
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

var t0 = time.Date(2026, 11, 23, 4, 0, 0, 0, time.UTC)

func stamp(t time.Time) string { return t.Format(time.RFC3339Nano) }

// seen is a project created at created, in stage since entered.
func seen(id string, stage apitypes.Stage, created, entered time.Time) *apitypes.Project {
	return &apitypes.Project{ID: id, SourceID: "up_" + id, Stage: stage, CreatedAt: stamp(created), UpdatedAt: stamp(entered)}
}

func TestPaceDueFromLearnedStageTimes(t *testing.T) {
	m := newPaceModel()
	if _, ok := m.due(seen("new", apitypes.StageQueued, t0, t0)); ok {
		t.Fatal("a prediction before anything was learned")
	}
	// Two projects: RENDER reached after 4s and 6s, COMPLETE after 18s and 22s.
	for i, reach := range []struct{ render, done time.Duration }{{4 * time.Second, 18 * time.Second}, {6 * time.Second, 22 * time.Second}} {
		id := string(rune('a' + i))
		m.observe(seen(id, apitypes.StageQueued, t0, t0)) // its create answer
		m.observe(seen(id, apitypes.StageRender, t0, t0.Add(reach.render)))
		m.observe(seen(id, apitypes.StageComplete, t0, t0.Add(reach.done)))
	}
	created := t0.Add(time.Minute)
	// Just created: due after the mean time to COMPLETE (20s) plus half its spread (4s).
	if due, ok := m.due(seen("new", apitypes.StageQueued, created, created)); !ok || !due.Equal(created.Add(22*time.Second)) {
		t.Fatalf("due %v %v, want created+22s", due, ok)
	}
	// Seen entering RENDER late (at 10s): the rest takes RENDER to COMPLETE (15s) plus the margin.
	if due, _ := m.due(seen("new", apitypes.StageRender, created, created.Add(10*time.Second))); !due.Equal(created.Add(27 * time.Second)) {
		t.Fatalf("due from RENDER %v, want created+27s", due.Sub(created))
	}
}

// A source's length scales the prediction when the process uploaded it.
func TestPaceScalesBySourceSize(t *testing.T) {
	m := newPaceModel()
	m.uploaded("up_a", 1000)
	m.uploaded("up_b", 3000)
	m.observe(seen("a", apitypes.StageQueued, t0, t0))
	m.observe(seen("a", apitypes.StageComplete, t0, t0.Add(10*time.Second)))
	if due, _ := m.due(seen("b", apitypes.StageQueued, t0, t0)); !due.Equal(t0.Add(30 * time.Second)) {
		t.Fatalf("due %v, want 30s for three times the bytes", due.Sub(t0))
	}
	// A source of unknown size: the plain mean.
	if due, _ := m.due(seen("c", apitypes.StageQueued, t0, t0)); !due.Equal(t0.Add(10 * time.Second)) {
		t.Fatalf("due %v, want 10s", due.Sub(t0))
	}
}

// Only a stage change the process watched teaches: an old COMPLETE project
// read for the first time, or edited later (updatedAt moves, the stage does
// not), says nothing about how long projects take.
func TestPaceLearnsOnlyWatchedStageChanges(t *testing.T) {
	m := newPaceModel()
	m.observe(seen("old", apitypes.StageComplete, t0, t0.Add(72*time.Hour))) // first read: a refresh
	m.observe(seen("old", apitypes.StageComplete, t0, t0.Add(96*time.Hour))) // a visibility change later
	if _, ok := m.due(seen("new", apitypes.StageQueued, t0, t0)); ok {
		t.Fatal("learned from a project it never saw in flight")
	}
	m.observe(seen("w", apitypes.StageQueued, t0, t0))
	m.observe(seen("w", apitypes.StageComplete, t0, t0.Add(20*time.Second)))
	m.observe(seen("w", apitypes.StageComplete, t0, t0.Add(48*time.Hour))) // edited afterwards
	if due, ok := m.due(seen("new", apitypes.StageQueued, t0, t0)); !ok || !due.Equal(t0.Add(20*time.Second)) {
		t.Fatalf("due %v %v, want created+20s from the one watched completion", due.Sub(t0), ok)
	}
}

func TestNextPollPlans(t *testing.T) {
	c := newTestClient(t, "http://svc.test", nil)
	opts := WaitOptions{PollInterval: 5 * time.Second, MaxPollInterval: 30 * time.Second}
	created := t0
	a := newProjectWait("a", WaitOptions{PollInterval: opts.PollInterval, MaxPollInterval: opts.MaxPollInterval, Known: seen("a", apitypes.StageQueued, created, created)})
	b := newProjectWait("b", WaitOptions{PollInterval: opts.PollInterval, MaxPollInterval: opts.MaxPollInterval, Known: seen("b", apitypes.StageQueued, created, created)})
	// The create answers arrived at created, by this test's clock.
	for _, w := range []*projectWait{a, b} {
		w.anchored = false
		w.anchor(w.last, created)
	}

	// Nothing learned: a scouts on the plain backoff, b waits for news.
	if d, wake := c.nextPoll(a, created); d != 5*time.Second || wake != nil {
		t.Fatalf("scout plan %v %v", d, wake)
	}
	d, wake := c.nextPoll(b, created)
	if d != pacedCeilings*30*time.Second || wake == nil {
		t.Fatalf("non-scout plan %v %v", d, wake)
	}
	// A project seen COMPLETE after 20s is news.
	c.observe(seen("x", apitypes.StageRender, created.Add(-time.Minute), created.Add(-50*time.Second)))
	c.observe(seen("x", apitypes.StageComplete, created.Add(-time.Minute), created.Add(-40*time.Second)))
	if !isClosed(wake) {
		t.Fatal("learning a completion did not wake the waiting plan")
	}
	// Predicted: b polls when due, or plans again when the model changes.
	if d, wake := c.nextPoll(b, created.Add(2*time.Second)); d != 18*time.Second || wake == nil {
		t.Fatalf("paced plan %v %v", d, wake)
	}
	// The service's clock an hour ahead of this one: the same plan.
	skewed := newProjectWait("s", WaitOptions{PollInterval: opts.PollInterval, MaxPollInterval: opts.MaxPollInterval,
		Known: seen("s", apitypes.StageQueued, created.Add(time.Hour), created.Add(time.Hour))})
	skewed.anchored = false
	skewed.anchor(skewed.last, created)
	if d, _ := c.nextPoll(skewed, created.Add(2*time.Second)); d != 18*time.Second {
		t.Fatalf("plan with a skewed service clock %v, want 18s", d)
	}
	// Due since the last look (its create answer): look now (the floor).
	if d, _ := c.nextPoll(b, created.Add(25*time.Second)); d != time.Second {
		t.Fatalf("due plan %v, want the 1s floor", d)
	}
	// A poll after it was due found it running: look again after an eighth of the typical time.
	b.saw(seen("b", apitypes.StageQueued, created, created), created.Add(21*time.Second))
	if d, _ := c.nextPoll(b, created.Add(21*time.Second)); d != 2500*time.Millisecond {
		t.Fatalf("late plan %v, want 20s/8", d)
	}
	// A look less than a step before the due found it running (a sample that
	// came since moved the due past it): the next a step after that look, not
	// at once. (In a loaded 8-project bench two projects were read again 1.1 s
	// after such a look, and a third time 7.8 s later.)
	b.saw(seen("b", apitypes.StageQueued, created, created), created.Add(19500*time.Millisecond))
	if d, _ := c.nextPoll(b, created.Add(20*time.Second)); d != 2*time.Second {
		t.Fatalf("plan after a look just before the due %v, want 2s (19.5s + 20s/8)", d)
	}
}

// Projects of a batch after the first are polled once, when they are done:
// the first wait learns how long a project takes.
func TestWaitPollsOnceWhenPredicted(t *testing.T) {
	// In a bubble a project takes exactly took, however loaded the machine:
	// on wall time a slow poll passed the prediction and counted twice.
	synctest.Test(t, func(t *testing.T) {
		const took = 40 * time.Millisecond
		svc := newTimedHandler()
		c := newTestClient(t, "http://clipperd.test", func(cfg *Config) { cfg.HTTPClient = inProcess(svc.handler) })
		for _, id := range []string{"first", "second", "third"} {
			if _, err := c.WaitForProject(t.Context(), id, svc.start(id, time.Now(), took)); err != nil {
				t.Fatal(err)
			}
		}
		if svc.polls("first") < 2 || svc.polls("second") != 1 || svc.polls("third") != 1 {
			t.Fatalf("polls %v, want several for the first and one for each after", svc.pollCounts())
		}
	})
}

// timedService answers a project RENDER until the time it takes has passed
// since its creation, then COMPLETE, and counts the polls of each.
type timedService struct {
	*httptest.Server
	handler http.Handler // the service, for a client served in process
	mu      sync.Mutex
	created map[string]time.Time
	takes   map[string]time.Duration
	counts  map[string]int
}

func newTimedService(t *testing.T) *timedService {
	s := newTimedHandler()
	s.Server = httptest.NewServer(s.handler)
	t.Cleanup(s.Close)
	return s
}

// newTimedHandler is a timedService without a socket, for a test in a
// synctest bubble (inProcess).
func newTimedHandler() *timedService {
	s := &timedService{created: map[string]time.Time{}, takes: map[string]time.Duration{}, counts: map[string]int{}}
	s.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		id := strings.TrimPrefix(r.URL.Path, "/api/clip-projects/")
		s.counts[id]++
		start := s.created[id]
		p := seen(id, apitypes.StageRender, start, start)
		if done := start.Add(s.takes[id]); !time.Now().Before(done) {
			p = seen(id, apitypes.StageComplete, start, done)
		}
		writeJSON(w, 200, p)
	})
	return s
}

// start makes project id, created at at and taking d, and returns the
// options of a quick wait that knows its create answer.
func (s *timedService) start(id string, at time.Time, d time.Duration) WaitOptions {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.created[id], s.takes[id] = at, d
	return WaitOptions{PollInterval: 5 * time.Millisecond, MaxPollInterval: time.Second, Known: seen(id, apitypes.StageQueued, at, at)}
}

func (s *timedService) polls(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[id]
}

func (s *timedService) pollCounts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.counts)
}

// The prediction follows the latest wave: when the service speeds up (its
// load dropped), the next projects are predicted from the projects that ran
// last, not from a mean over the slow ones too.
func TestPacePredictsFromTheLatestWave(t *testing.T) {
	m := newPaceModel()
	for i, done := range []time.Duration{84, 85, 86, 85, 50, 49, 51, 50} {
		id := fmt.Sprintf("p%d", i)
		m.observe(seen(id, apitypes.StageQueued, t0, t0))
		m.observe(seen(id, apitypes.StageComplete, t0, t0.Add(done*time.Second)))
	}
	// The last four: mean 50 s, spread 2/3 s, half of it as margin.
	if due, _ := m.due(seen("next", apitypes.StageQueued, t0, t0)); due.Sub(t0).Round(time.Millisecond) != 50333*time.Millisecond {
		t.Fatalf("due %v after creation, want 50.333s from the latest wave", due.Sub(t0))
	}
}

// A process bound by its rate window polls a step (an eighth of the typical
// time) after the due, and planning tells the model when that starts.
func TestRateBoundPollsAStepAfterTheDue(t *testing.T) {
	c := newTestClient(t, "http://svc.test", func(cfg *Config) { cfg.RequestsPerMinute = 30 })
	c.observe(seen("x", apitypes.StageQueued, t0, t0))
	c.observe(seen("x", apitypes.StageComplete, t0, t0.Add(20*time.Second)))
	created := t0.Add(time.Minute)
	w := newProjectWait("b", WaitOptions{Known: seen("b", apitypes.StageQueued, created, created)})
	w.anchored = false
	w.anchor(w.last, created)

	if d, _ := c.nextPoll(w, created); d != 20*time.Second {
		t.Fatalf("plan with calls to spare %v, want the due (20s)", d)
	}
	// Eleven creates waiting for a slot may need 33 calls; the window has 30.
	for range 11 {
		t.Cleanup(c.slots.waiter())
	}
	if !c.rateBound(time.Now()) {
		t.Fatalf("not rate-bound with %d calls ahead and %d left", c.slots.callsAhead(), c.limiter.left(time.Now()))
	}
	if d, _ := c.nextPoll(w, created); d != 22500*time.Millisecond {
		t.Fatalf("rate-bound plan %v, want the due plus 20s/8", d)
	}
}

// Calls ahead against the window's room: four projects in flight and six
// creates waiting for a slot (3 calls each: 30) fit an empty window, and
// stop fitting once one request has gone.
func TestRateBoundCountsTheWindowsRoom(t *testing.T) {
	c := newTestClient(t, "http://svc.test", func(cfg *Config) { cfg.RequestsPerMinute = 30 })
	for i := range 4 {
		sl, _, _ := c.slots.tryAcquire()
		if sl == nil {
			t.Fatalf("no slot for project %d of 4", i)
		}
		sl.hold(fmt.Sprintf("p%d", i))
	}
	for range 6 {
		t.Cleanup(c.slots.waiter())
	}
	if got := c.slots.callsAhead(); got != 30 {
		t.Fatalf("calls ahead %d, want 30", got)
	}
	now := time.Now()
	if c.rateBound(now) {
		t.Fatal("rate-bound with 30 calls ahead and 30 left")
	}
	if d := c.limiter.admit(now); d != 0 {
		t.Fatalf("first request held %v", d)
	}
	if c.limiter.left(now) != 29 || !c.rateBound(now) {
		t.Fatalf("left %d, bound %v after one request; want 29 and bound", c.limiter.left(now), c.rateBound(now))
	}
	if later := now.Add(limitWindow); c.limiter.left(later) != 30 || c.rateBound(later) {
		t.Fatal("the request did not leave the window after it")
	}
}
