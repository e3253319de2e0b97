package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// orphan puts project id in stage as a worker leaves it when its last write
// failed: in a processing stage, with no worker holding it.
func (e *env) orphan(id string, stage apitypes.Stage, failureStalls int64) {
	e.t.Helper()
	if _, err := e.st.MutateProject(context.Background(), id, func(p *store.Project) error {
		p.Stage, p.FailureStalls = stage, failureStalls
		return nil
	}); err != nil {
		e.t.Fatal(err)
	}
}

// A project left in RENDER by a worker that could not save its stall held
// its org's concurrent slot until a restart. The watchdog stalls it as a
// transient failure that is retried.
func TestWatchdogStallsAProjectNoWorkerHolds(t *testing.T) {
	e := newEnv(t)
	e.cfg.RetryBase = time.Hour // stay STALLED while the test looks
	id := e.create(apitypes.CreateProjectRequest{VideoURL: "up_x"})
	e.runner()
	e.orphan(id, apitypes.StageRender, 0)
	p := e.waitFor(id, func(p *store.Project) bool { return p.Stage != apitypes.StageRender })
	if p.Stage != apitypes.StageStalled || p.RetryAt.IsZero() || p.FailureStalls != 1 ||
		p.Error == nil || !strings.Contains(*p.Error, "stopped making progress in RENDER") {
		t.Errorf("orphaned project: stage %s retryAt %q failureStalls %d error %v; want STALLED, retried, 1, stopped making progress",
			p.Stage, p.RetryAt, p.FailureStalls, deref(p.Error))
	}
}

// Once its retries are used up the watchdog stalls the project for good,
// which frees the org's concurrent slot.
func TestWatchdogFreesTheSlotAfterRetries(t *testing.T) {
	e := newEnv(t)
	id := e.create(apitypes.CreateProjectRequest{VideoURL: "up_x"})
	e.orphan(id, apitypes.StageRender, 3) // MaxRetries (3) used
	admit := store.Admission{MaxConcurrent: 1, Reserve: quota.ReserveCredits}
	if err := e.st.CreateProject(context.Background(), &store.Project{ID: "p-blocked", OrgID: testOrg, Stage: apitypes.StageQueued}, admit); !errors.Is(err, store.ErrConcurrentCap) {
		t.Fatalf("create while the orphan holds the slot: %v, want the concurrent cap", err)
	}
	r, err := New(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	p := e.project(id)
	if p.Stage != apitypes.StageStalled || !p.RetryAt.IsZero() {
		t.Fatalf("stage %s retryAt %q, want STALLED for good", p.Stage, p.RetryAt)
	}
	if err := e.st.CreateProject(context.Background(), &store.Project{ID: "p-next", OrgID: testOrg, Stage: apitypes.StageQueued}, admit); err != nil {
		t.Errorf("create after the watchdog stalled the orphan: %v", err)
	}
}

// A project a worker holds is in progress, however long its stage takes;
// and one that moved on since the watchdog read it is left alone.
func TestWatchdogLeavesHeldAndChangedProjects(t *testing.T) {
	e := newEnv(t)
	held := e.create(apitypes.CreateProjectRequest{VideoURL: "up_x"})
	e.orphan(held, apitypes.StageRender, 0)
	r, err := New(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.known[held] = true
	if err := r.watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p := e.project(held); p.Stage != apitypes.StageRender {
		t.Errorf("a held project went %s", p.Stage)
	}
	seen := *e.project(held)
	e.orphan(held, apitypes.StageUpload, 0) // the worker moved on
	r.stallWhen(context.Background(), held, seen.Stage, stoppedError(seen.Stage), 0, func(now *store.Project) bool {
		return now.Stage == seen.Stage && now.UpdatedAt.Equal(seen.UpdatedAt)
	})
	if p := e.project(held); p.Stage != apitypes.StageUpload {
		t.Errorf("a project that moved on was stalled: %s", p.Stage)
	}
}

// A state write that fails is tried again after a doubling wait, at most
// WriteAttempts times; a refusal is not retried.
func TestPersistRetriesWithBackoff(t *testing.T) {
	e := newEnv(t)
	e.cfg.WriteAttempts, e.cfg.WriteRetryBase = 4, time.Second
	r, err := New(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	r.sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	enospc := fmt.Errorf("save: %w", &fs.PathError{Op: "write", Path: "clipperd.db-wal", Err: syscall.ENOSPC})

	calls := 0
	err = r.persist(context.Background(), "stall", "p", func() error {
		if calls++; calls < 3 {
			return enospc
		}
		return nil
	})
	if err != nil || calls != 3 || !slices.Equal(waits, []time.Duration{time.Second, 2 * time.Second}) {
		t.Errorf("two failures then success: err %v, %d calls, waits %v; want nil, 3, [1s 2s]", err, calls, waits)
	}

	calls, waits = 0, nil
	err = r.persist(context.Background(), "stall", "p", func() error { calls++; return enospc })
	if !errors.Is(err, syscall.ENOSPC) || calls != 4 || len(waits) != 3 {
		t.Errorf("always failing: err %v, %d calls, %d waits; want ENOSPC after 4 calls", err, calls, len(waits))
	}

	calls = 0
	err = r.persist(context.Background(), "stage", "p", func() error { calls++; return errNotQueued })
	if !errors.Is(err, errNotQueued) || calls != 1 {
		t.Errorf("a refused claim: err %v after %d calls, want one call", err, calls)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r.sleep = sleepCtx
	calls = 0
	if err := r.persist(ctx, "stall", "p", func() error { calls++; return enospc }); !errors.Is(err, syscall.ENOSPC) || calls != 1 {
		t.Errorf("retry during shutdown: err %v after %d calls, want the first failure", err, calls)
	}
}

// A stall written while the database is full (SQLite's own "database or
// disk is full") is saved once space comes back during the retries, instead
// of being lost with the project left in its stage.
func TestStallIsSavedWhenTheDiskFreesUp(t *testing.T) {
	e := newEnv(t)
	e.cfg.RetryBase = time.Hour
	id := e.create(apitypes.CreateProjectRequest{VideoURL: "up_x"})
	e.orphan(id, apitypes.StageRender, 0)
	r, err := New(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	full := fillDatabase(t, e.st)
	freed := false
	r.sleep = func(context.Context, time.Duration) error {
		freed = true
		return e.st.LimitSize(context.Background(), true)
	}
	// ffmpeg's long report makes the row grow past what the page holds.
	cause := errors.New("render: no space left on device: " + strings.Repeat("ffmpeg said ", 500))
	r.stall(context.Background(), id, apitypes.StageRender, cause, 0)
	p := e.project(id)
	if p.Stage != apitypes.StageStalled || !freed {
		t.Errorf("stage %s after the disk freed up (freed %v, full error %v), want STALLED", p.Stage, freed, full)
	}
}

// fillDatabase caps the database at its size and fills the room left in
// the projects' pages, as a full disk would; it returns SQLite's error.
func fillDatabase(t *testing.T, st *store.Store) error {
	t.Helper()
	ctx := context.Background()
	if err := st.LimitSize(ctx, false); err != nil {
		t.Fatal(err)
	}
	filler := strings.Repeat("x", 3000) // most of a page: the next project needs a page of its own
	for i := range 10_000 {
		p := &store.Project{ID: fmt.Sprintf("filler-%d", i), OrgID: "org-filler", Stage: apitypes.StageComplete, VideoURL: filler}
		if err := st.CreateProject(ctx, p, store.Admission{}); err != nil {
			if !store.IsFull(err) {
				t.Fatalf("filling the database: %v", err)
			}
			return err
		}
	}
	t.Fatal("the capped database never filled up")
	return nil
}
