package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/backoff"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// orphan puts project id in stage as a process that died leaves it: in a
// processing stage, its run's lease ended a moment ago.
func (e *env) orphan(id string, stage apitypes.Stage, failureStalls int64) {
	e.t.Helper()
	// Ended by the runner's clock: a test that holds its clock still may
	// take any time to get here.
	now := time.Now
	if e.cfg.Clock != nil {
		now = e.cfg.Clock
	}
	if _, err := e.st.MutateProject(context.Background(), id, func(p *store.Project) error {
		p.Stage, p.FailureStalls, p.LeaseUntil = stage, failureStalls, now().Add(-time.Second)
		return nil
	}); err != nil {
		e.t.Fatal(err)
	}
}

// pipelineJobs lists the pipeline queue's jobs as "state run" ("available
// 1"), oldest first.
func pipelineJobs(t *testing.T, r *Runner) []string {
	t.Helper()
	recent, err := r.cfg.Jobs.Recent(t.Context(), jobs.QueuePipeline, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, in := range slices.Backward(recent) {
		if in.Kind != (runArgs{}).Kind() {
			continue // the pieces' jobs share the queue
		}
		var a runArgs
		if err := json.Unmarshal([]byte(in.Args), &a); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %d", in.State, a.Run))
	}
	return out
}

// A project left in RENDER by a process that died is queued again once its
// run's lease ends: counted as a stall, not as a failure of the project, with
// a new run token and the job of that token, in one transaction.
func TestWatchdogRequeuesAProjectWhoseLeaseEnded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	e.r = r
	id := e.create(apitypes.CreateProjectRequest{VideoURL: "up_x"})
	e.orphan(id, apitypes.StageRender, 1)
	if err := r.watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	p := e.project(id)
	if p.Stage != apitypes.StageQueued || p.StallCount == nil || *p.StallCount != 1 || p.FailureStalls != 1 ||
		p.Error != nil || p.RunToken != 1 || !p.LeaseUntil.IsZero() {
		t.Errorf("after the watchdog: stage %s stallCount %v failureStalls %d error %v token %d lease %v; want QUEUED, 1, 1 (unchanged), none, 1, none",
			p.Stage, deref(p.StallCount), p.FailureStalls, deref(p.Error), p.RunToken, p.LeaseUntil)
	}
	if got, want := pipelineJobs(t, r), []string{"available 0", "available 1"}; !slices.Equal(got, want) {
		t.Errorf("pipeline jobs %v, want %v (the create's, then the requeue's)", got, want)
	}
	// A second look, or another process's, finds nothing more to do.
	if err := r.watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p := e.project(id); p.RunToken != 1 || len(pipelineJobs(t, r)) != 2 {
		t.Errorf("a second look requeued again: token %d, jobs %v", p.RunToken, pipelineJobs(t, r))
	}
}

// A project whose lease runs is in progress, however long its stage takes;
// a project a release before leases left in a processing stage (no lease)
// is queued again.
func TestWatchdogLeavesLiveLeases(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	live := e.create(apitypes.CreateProjectRequest{VideoURL: "up_x"})
	old := e.create(apitypes.CreateProjectRequest{VideoURL: "up_y"})
	for id, lease := range map[string]time.Time{live: time.Now().Add(time.Minute), old: {}} {
		if _, err := e.st.MutateProject(context.Background(), id, func(p *store.Project) error {
			p.Stage, p.LeaseUntil = apitypes.StageRender, lease
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p := e.project(live); p.Stage != apitypes.StageRender || p.RunToken != 0 {
		t.Errorf("a project with a live lease went %s (token %d)", p.Stage, p.RunToken)
	}
	if p := e.project(old); p.Stage != apitypes.StageQueued || p.RunToken != 1 {
		t.Errorf("a project left without a lease is %s (token %d), want QUEUED again", p.Stage, p.RunToken)
	}
}

// A run taken over (its project was queued again with a new token) writes
// nothing: not its stage, its clips, its stall or its completion, and its
// heartbeat learns it lost the project. A job of a stale token does nothing.
func TestStaleRunWritesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	e.r = r
	id := e.create(apitypes.CreateProjectRequest{VideoURL: "up_x"})
	e.orphan(id, apitypes.StageRender, 0) // run 0 holds it, then its lease ends
	if err := r.watch(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := e.project(id)
	ctx := context.Background()

	if held, err := e.st.RenewLease(ctx, id, 0, time.Now().Add(time.Minute)); err != nil || held {
		t.Errorf("RenewLease of the stale run = %v, %v; want false", held, err)
	}
	var started time.Time
	_, err = e.st.MutateProject(ctx, id, func(p *store.Project) error { return r.enter(p, 0, time.Time{}, apitypes.StageUpload, &started) })
	if !errors.Is(err, store.ErrStaleRun) {
		t.Errorf("stage write of the stale run: %v, want ErrStaleRun", err)
	}
	if err := e.st.ReplaceRunClips(ctx, id, testOrg, 0, []store.Clip{{ID: id + ".c01", CurationID: "c01"}}); !errors.Is(err, store.ErrStaleRun) {
		t.Errorf("clips of the stale run: %v, want ErrStaleRun", err)
	}
	r.stall(ctx, id, 0, apitypes.StageRender, errors.New("ffmpeg failed"), 0)
	if _, err := r.complete(ctx, &job{p: before, run: 0}); !errors.Is(err, store.ErrStaleRun) {
		t.Errorf("completion of the stale run: %v, want ErrStaleRun", err)
	}
	if _, err := r.handOff(ctx, &job{p: before, run: 0}); !errors.Is(err, store.ErrStaleRun) {
		t.Errorf("hand-off of the stale import: %v, want ErrStaleRun", err)
	}
	// River retrying the job of run 0 (its process died) finds it stale.
	for _, l := range []leg{wholeRun, importLeg} {
		if err := r.process(ctx, id, 0, l); err != nil {
			t.Errorf("the stale job: %v", err)
		}
	}
	after := e.project(id)
	clips, err := e.st.ListClips(ctx, id, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if after.Stage != apitypes.StageQueued || after.RunToken != 1 || after.FailureStalls != 0 || !after.UpdatedAt.Equal(before.UpdatedAt) || len(clips) != 0 {
		t.Errorf("after the stale run's writes: stage %s token %d failureStalls %d updated %v (was %v), %d clips; want it untouched",
			after.Stage, after.RunToken, after.FailureStalls, after.UpdatedAt, before.UpdatedAt, len(clips))
	}
}

// Adopt gives a QUEUED project without a job (a release before the job
// system made it) its job, once however often it runs.
func TestAdoptGivesQueuedProjectsOneJob(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.create(apitypes.CreateProjectRequest{VideoURL: "up_x"}) // no runner yet: no job
	r, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	if got := pipelineJobs(t, r); len(got) != 0 {
		t.Fatalf("jobs before Adopt: %v", got)
	}
	for range 2 {
		if err := r.Adopt(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := pipelineJobs(t, r), []string{"available 0"}; !slices.Equal(got, want) {
		t.Errorf("jobs after two Adopts: %v, want %v", got, want)
	}
}

// A state write that fails is tried again after a doubling wait, at most
// WriteAttempts times; a refusal is not retried.
func TestPersistRetriesWithBackoff(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.cfg.WriteAttempts, e.cfg.WriteRetryBase = 4, time.Second
	r, err := e.newRunner()
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

	// The store already waited out its dependency window: no second window.
	calls = 0
	away := fmt.Errorf("save: %w", &dependency.UnreachableError{Name: "database", Window: time.Minute, Err: syscall.ECONNREFUSED})
	err = r.persist(context.Background(), "stage", "p", func() error { calls++; return away })
	if !errors.Is(err, syscall.ECONNREFUSED) || calls != 1 {
		t.Errorf("a database unreachable through the store's retries: err %v after %d calls, want one call", err, calls)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r.sleep = backoff.Sleep
	calls = 0
	if err := r.persist(ctx, "stall", "p", func() error { calls++; return enospc }); !errors.Is(err, syscall.ENOSPC) || calls != 1 {
		t.Errorf("retry during shutdown: err %v after %d calls, want the first failure", err, calls)
	}
}

// A stall written while the database is full (SQLite's own "database or
// disk is full") is saved once space comes back during the retries, instead
// of being lost with the project left in its stage.
func TestStallIsSavedWhenTheDiskFreesUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.cfg.RetryBase = time.Hour
	id := e.create(apitypes.CreateProjectRequest{VideoURL: "up_x"})
	e.orphan(id, apitypes.StageRender, 0)
	r, err := e.newRunner()
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
	r.stall(context.Background(), id, 0, apitypes.StageRender, cause, 0)
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
