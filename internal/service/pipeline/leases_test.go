package pipeline

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// skew is how far the clocks of the skewed processes below are off.
const skew = time.Minute

// skewed is a process clock d off the true time.
func skewed(d time.Duration) func() time.Time {
	return func() time.Time { return time.Now().Add(d) }
}

// On PostgreSQL, processes on several machines share leases, and their
// clocks may disagree by more than a lease. Leases are taken, renewed and
// checked by the database's clock, so a process whose clock runs a minute
// ahead neither queues again another process's live run nor takes leases
// that outlive it by a minute, and one whose clock lags does not keep a
// dead run's lease alive.
func TestLeasesFollowTheDatabaseClock(t *testing.T) {
	t.Parallel()
	src := testVideo(t)
	e := newEnvOn(t, storetest.PostgresURL(t))
	ctx := context.Background()
	dbNow := func() time.Time {
		t.Helper()
		now, ok, err := e.st.DatabaseTime(ctx)
		if err != nil || !ok {
			t.Fatalf("the database's clock: %v, %v", ok, err)
		}
		return now
	}
	req := func() apitypes.CreateProjectRequest {
		return apitypes.CreateProjectRequest{
			VideoURL:     e.upload(src),
			CurationPref: &apitypes.CurationPref{Range: &apitypes.Range{StartSec: f64(0), EndSec: f64(20)}, ClipDurations: [][2]float64{{5, 9}}},
		}
	}

	// Process A, on time, runs a project and is held in RENDER; its
	// heartbeat renews the lease meanwhile. The lease is well under the
	// skew, so the checks below still tell the clocks apart, and long
	// enough that a renewal slowed by a loaded machine does not end it (A's
	// own watchdog would then queue A's run again, as a run of token 1).
	e.cfg.Lease = 20 * time.Second
	rA, jsA := e.processWith(1)
	rendering, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	rA.hook = func(_ context.Context, point string) {
		if point == "render 0" {
			once.Do(func() { close(rendering); <-release })
		}
	}
	e.start(rA, jsA)
	live := e.create(req())
	select {
	case <-rendering:
	case <-time.After(finishWait):
		t.Fatalf("never reached RENDER; stage %s", e.project(live).Stage)
	}

	// Process B's clock runs a minute ahead: its watchdog leaves A's run.
	e.cfg.Clock = skewed(skew)
	rB, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	if err := rB.watch(ctx); err != nil {
		t.Fatal(err)
	}
	if p := e.project(live); p.Stage != apitypes.StageRender || p.RunToken != 0 || p.StallCount != nil {
		t.Errorf("a watchdog whose clock is %s ahead took a live run: stage %s token %d stallCount %v (lease until %v, database time %v)",
			skew, p.Stage, p.RunToken, deref(p.StallCount), p.LeaseUntil, dbNow())
	}
	close(release)
	if p := e.waitDone(live); p.Stage != apitypes.StageComplete || p.RunToken != 0 {
		t.Errorf("A's run ended %s (token %d, error %v), want COMPLETE by run 0", p.Stage, p.RunToken, deref(p.Error))
	}
	stop(rA, jsA) // no process works the queue from here on: the runs below are the test's

	// Process C's clock lags a minute: a run whose lease ended a second
	// ago (by the database's clock) is queued again by its watchdog.
	e.cfg.Clock = skewed(-skew)
	rC, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	e.r = rC
	dead := e.create(req())
	if _, err := e.st.MutateProject(ctx, dead, func(p *store.Project) error {
		p.Stage, p.LeaseUntil = apitypes.StageRender, dbNow().Add(-time.Second)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := rC.watch(ctx); err != nil {
		t.Fatal(err)
	}
	if p := e.project(dead); p.Stage != apitypes.StageQueued || p.RunToken != 1 {
		t.Errorf("a watchdog whose clock lags %s kept a dead lease: stage %s token %d (lease until %v, database time %v)",
			skew, p.Stage, p.RunToken, p.LeaseUntil, dbNow())
	}

	// Process D's clock runs a minute ahead: the lease its run takes ends
	// a lease after the database's time, not a minute later.
	e.cfg.Clock = skewed(skew)
	rD, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	e.r = rD
	claimed := make(chan time.Time, 1)
	rD.hook = func(ctx context.Context, point string) {
		if point == string(apitypes.StageImport) {
			at, _, _ := e.st.DatabaseTime(ctx) // zero on failure: the check below fails
			claimed <- at
			<-ctx.Done() // held after the claim until cut
		}
	}
	taken := e.create(req())
	runCtx, cut := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- rD.process(runCtx, taken, 0, wholeRun) }()
	var at time.Time
	select {
	case at = <-claimed:
	case err := <-done:
		t.Fatalf("the run ended before its claim: %v (stage %s)", err, e.project(taken).Stage)
	}
	p := e.project(taken)
	cut()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The claim was written before at: its lease ends by at+Lease.
	if p.Stage != apitypes.StageImport || p.LeaseUntil.After(at.Add(e.cfg.Lease)) {
		t.Errorf("a run of a process %s ahead took a lease until %v, past the database's %v + the %s lease (stage %s)",
			skew, p.LeaseUntil, at, e.cfg.Lease, p.Stage)
	}
}

// On SQLite (one machine) leases keep the process's clock.
func TestLeasesOnSQLiteTakeTheProcessClock(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.cfg.Clock = skewed(skew)
	r, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	now, err := r.leases.now(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Until(now); d < skew/2 {
		t.Errorf("lease time %v is %s from the true time, want the process clock's %s", now, d, skew)
	}
}

// A project whose runs' lease keeps ending without an outcome backs off
// between them on the stall retries' curve, and is given up (STALLED, no
// retry, saying why) at the MaxInterruptions-th in a row; the first is
// queued again at once, and an outcome starts the count again.
func TestWatchdogBacksOffRepeatedInterruptions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.cfg.RetryBase = time.Minute
	r, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	e.r = r
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	e.st.SetClock(func() time.Time { return now })
	ctx := context.Background()
	id := e.create(apitypes.CreateProjectRequest{VideoURL: "up_x"})

	// A run dies, then an outcome (its stall): the count starts again.
	e.orphan(id, apitypes.StageUpload, 0)
	if err := r.watch(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.MutateProject(ctx, id, func(p *store.Project) error { p.Stage = apitypes.StageCurate; return nil }); err != nil {
		t.Fatal(err)
	}
	r.stall(ctx, id, 1, apitypes.StageCurate, errors.New("ffmpeg failed"), 0)
	if p := e.project(id); p.Interruptions != 0 || p.FailureStalls != 1 {
		t.Fatalf("after a stall: interruptions %d failureStalls %d, want 0, 1", p.Interruptions, p.FailureStalls)
	}

	wantWait := []time.Duration{0, time.Minute, 2 * time.Minute, 4 * time.Minute}
	for n := 1; n <= DefaultMaxInterruptions; n++ {
		e.orphan(id, apitypes.StageRender, 1)
		if err := r.watch(ctx); err != nil {
			t.Fatal(err)
		}
		p := e.project(id)
		if p.Interruptions != int64(n) || p.FailureStalls != 1 || !p.LeaseUntil.IsZero() {
			t.Errorf("interruption %d: interruptions %d failureStalls %d lease %v; want %d, 1 (no failure), none",
				n, p.Interruptions, p.FailureStalls, p.LeaseUntil, n)
		}
		switch {
		case n == 1:
			if p.Stage != apitypes.StageQueued || p.Error != nil {
				t.Errorf("interruption 1: stage %s error %v, want QUEUED at once", p.Stage, deref(p.Error))
			}
		case n < DefaultMaxInterruptions:
			if p.Stage != apitypes.StageStalled || p.RetryAt.Sub(now) != wantWait[n-1] || p.Error == nil {
				t.Errorf("interruption %d: stage %s retry in %s error %v; want STALLED, retried in %s",
					n, p.Stage, p.RetryAt.Sub(now), deref(p.Error), wantWait[n-1])
			}
			// The retry falls due; the next run claims the project.
			now = p.RetryAt
			if err := r.scan(ctx); err != nil {
				t.Fatal(err)
			}
			if q := e.project(id); q.Stage != apitypes.StageQueued || q.Interruptions != int64(n) {
				t.Errorf("interruption %d: after its backoff %s (interruptions %d), want QUEUED, the count kept", n, q.Stage, q.Interruptions)
			}
		default:
			if p.Stage != apitypes.StageStalled || !p.RetryAt.IsZero() || p.Error == nil ||
				!strings.Contains(*p.Error, "not retried: 5 runs in a row ended without an outcome") {
				t.Errorf("interruption %d: stage %s retryAt %v error %v; want STALLED for good, saying why", n, p.Stage, p.RetryAt, deref(p.Error))
			}
		}
	}
}

// refuseCurate makes the database refuse every write that moves project id
// into CURATE, as a database that fails one project's writes does (a
// trigger raising: a real failure of the database, not a stand-in).
func refuseCurate(t *testing.T, st *store.Store, id string) {
	t.Helper()
	stmts := []string{`CREATE TRIGGER refuse_curate BEFORE UPDATE ON projects FOR EACH ROW
		WHEN NEW.id = '` + id + `' AND NEW.stage = 'CURATE'
		BEGIN SELECT RAISE(ABORT, 'this project''s writes are refused'); END`}
	if st.Engine() == store.EnginePostgres {
		stmts = []string{`CREATE FUNCTION refuse_curate() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN
				IF NEW.id = '` + id + `' AND NEW.stage = 'CURATE' THEN
					RAISE EXCEPTION 'this project''s writes are refused';
				END IF;
				RETURN NEW;
			END $$`,
			`CREATE TRIGGER refuse_curate BEFORE UPDATE ON projects FOR EACH ROW EXECUTE FUNCTION refuse_curate()`}
	}
	for _, q := range stmts {
		if _, err := st.DB().ExecContext(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
}

// A project whose writes the database always refuses no longer runs
// again every lease for ever: each run's writes fail, its lease ends, and
// the watchdog queues it again, at once the first time, then after the
// backoff; the fifth run in a row without an outcome stalls it for good,
// saying why, and nothing runs it after.
func TestRefusedWritesBackOffThenStall(t *testing.T) {
	t.Parallel()
	onEachEngine(t, refusedWrites)
}

func refusedWrites(t *testing.T, e *env, src string) {
	e.cfg.Lease = 600 * time.Millisecond
	e.cfg.WriteAttempts, e.cfg.WriteRetryBase = 2, time.Millisecond
	e.cfg.RetryBase = 200 * time.Millisecond
	// Created before any process, so the trigger is there before its
	// first run (the process's Adopt gives it its job).
	id := e.create(apitypes.CreateProjectRequest{
		VideoURL:     e.upload(src),
		CurationPref: &apitypes.CurationPref{Range: &apitypes.Range{StartSec: f64(0), EndSec: f64(20)}, ClipDurations: [][2]float64{{5, 9}}},
	})
	refuseCurate(t, e.st, id)
	r, js := e.process()
	e.start(r, js)
	started := time.Now()
	p := e.waitDone(id)
	t.Logf("%d runs, then STALLED for good after %s", p.RunToken+1, time.Since(started).Round(time.Millisecond))
	want := int64(DefaultMaxInterruptions)
	if p.Stage != apitypes.StageStalled || p.Interruptions != want || p.RunToken != want-1 || p.FailureStalls != 0 ||
		p.StallCount == nil || *p.StallCount != want || p.Error == nil ||
		!strings.Contains(*p.Error, "during IMPORT (its lease ended) (not retried: 5 runs in a row ended without an outcome") {
		t.Fatalf("stage %s interruptions %d token %d failureStalls %d stallCount %v error %v; want STALLED after %d runs without an outcome, saying why",
			p.Stage, p.Interruptions, p.RunToken, p.FailureStalls, deref(p.StallCount), deref(p.Error), want)
	}
	// Given up: the watchdog and the retries leave it.
	for range 3 {
		if err := r.scan(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if q := e.project(id); q.Stage != apitypes.StageStalled || q.RunToken != p.RunToken {
		t.Errorf("after giving up: stage %s token %d, want it left STALLED at token %d", q.Stage, q.RunToken, p.RunToken)
	}
}

// A requeue the database refuses (a project whose every write fails) is
// tried again on the loops' backoff (1 s doubling), not on every look of
// the watchdog: one error line per attempt, not one per PollInterval; it
// goes through once the database takes it.
func TestWatchdogBacksOffARefusedRequeue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var logs syncBuffer
	e.cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	start := time.Now()
	clock := start
	e.cfg.Clock = func() time.Time { return clock }
	r, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	e.r = r
	id := e.create(apitypes.CreateProjectRequest{VideoURL: "up_x"})
	e.orphan(id, apitypes.StageRender, 0)
	if _, err := e.st.DB().Exec(`CREATE TRIGGER refuse_requeue BEFORE UPDATE ON projects FOR EACH ROW
		WHEN NEW.id = '` + id + `' AND NEW.stage IN ('QUEUED', 'STALLED')
		BEGIN SELECT RAISE(ABORT, 'this project''s writes are refused'); END`); err != nil {
		t.Fatal(err)
	}
	attempts := func() int { return strings.Count(logs.String(), `msg="requeue a project whose run's lease ended"`) }
	look := func(times int) {
		for range times {
			if err := r.watch(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, step := range []struct {
		advance time.Duration
		want    int
	}{
		{0, 1},                      // the first look tries
		{999 * time.Millisecond, 1}, // within its 1 s wait: no attempt
		{time.Millisecond, 2},       // 1 s on: the second, then 2 s
		{time.Second, 2},
		{time.Second, 3},
	} {
		clock = clock.Add(step.advance)
		look(10)
		if got := attempts(); got != step.want {
			t.Fatalf("10 looks at +%s: %d attempts logged in all, want %d", clock.Sub(start), got, step.want)
		}
	}
	if _, err := e.st.DB().Exec(`DROP TRIGGER refuse_requeue`); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(4 * time.Second)
	look(1)
	if p := e.project(id); p.Stage != apitypes.StageQueued || p.RunToken != 1 || attempts() != 3 {
		t.Errorf("once the database takes it: stage %s token %d, %d failures logged; want QUEUED, token 1, 3", p.Stage, p.RunToken, attempts())
	}
}
