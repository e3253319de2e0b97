package pipeline

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// A process killed (kill -9) after River claimed a project's job and before
// its run took the project's lease leaves the job running, by River's
// lights, on a project still QUEUED without a lease. The watchdog of any
// live process queues it again once the claim is older than a lease (a new
// token and its job), once however many processes look, without counting
// an interruption; a claim younger than a lease (a live process about to
// start its run) is left alone.
func TestWatchdogRequeuesAJobClaimedByADeadProcess(t *testing.T) {
	t.Parallel()
	onEachEngine(t, claimedByTheDead)
}

func claimedByTheDead(t *testing.T, e *env, src string) {
	// Long enough that the fresh claim below stays younger than a lease
	// for the whole test.
	e.cfg.Lease = 10 * time.Minute
	// The dead process: it inserted the jobs, never works them.
	e.process()
	req := func() apitypes.CreateProjectRequest {
		return apitypes.CreateProjectRequest{
			VideoURL:     e.upload(src),
			CurationPref: &apitypes.CurationPref{Range: &apitypes.Range{StartSec: f64(0), EndSec: f64(12)}, ClipDurations: [][2]float64{{5, 9}}},
			RenderPref:   &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectSquare},
		}
	}
	dead, fresh, rendering := e.create(req()), e.create(req()), e.create(req())
	claim(t, e.st, dead, time.Hour)
	claim(t, e.st, fresh, 0)
	// A run killed mid-render: its job held as long, its lease ended. It is
	// an interruption, which the held job must not hide.
	claim(t, e.st, rendering, time.Hour)
	if _, err := e.st.MutateProject(context.Background(), rendering, func(p *store.Project) error {
		p.Stage, p.LeaseUntil = apitypes.StageRender, time.Now().Add(-time.Minute)
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	// Two live processes look at once.
	e.runner()
	e.runner()
	p := e.waitDone(dead)
	if p.Stage != apitypes.StageComplete || p.RunToken != 1 || p.StallCount != nil || p.Interruptions != 0 {
		t.Fatalf("project claimed by a dead process: stage %s token %d stallCount %v interruptions %d error %v; want COMPLETE by run 1, queued again once, no stall",
			p.Stage, p.RunToken, deref(p.StallCount), p.Interruptions, deref(p.Error))
	}
	p = e.waitDone(rendering)
	if p.Stage != apitypes.StageComplete || p.RunToken != 1 || p.StallCount == nil || *p.StallCount != 1 {
		t.Fatalf("project killed mid-render: stage %s token %d stallCount %v error %v; want COMPLETE by run 1 after one interruption",
			p.Stage, p.RunToken, deref(p.StallCount), deref(p.Error))
	}
	if f := e.project(fresh); f.Stage != apitypes.StageQueued || f.RunToken != 0 {
		t.Errorf("project freshly claimed: stage %s token %d; want QUEUED by run 0, its claim younger than a lease", f.Stage, f.RunToken)
	}
}

// claim leaves project id's job as a process leaves it that River's claim
// reached and that was killed before its run claimed the project: running,
// its attempt started ago, by a client that no longer exists.
func claim(t *testing.T, st *store.Store, id string, ago time.Duration) {
	t.Helper()
	q := `UPDATE river_job SET state = 'running', attempt = 1,
		attempted_at = datetime('now', 'subsec', ?), attempted_by = '["dead-client"]'
		WHERE kind = 'project_run' AND json_extract(args, '$.project_id') = ?`
	at := any(fmt.Sprintf("-%f seconds", ago.Seconds())) // an SQLite date modifier
	if st.Engine() == store.EnginePostgres {
		q = `UPDATE river_job SET state = 'running', attempt = 1,
			attempted_at = now() - make_interval(secs => $1), attempted_by = ARRAY['dead-client']
			WHERE kind = 'project_run' AND args->>'project_id' = $2`
		at = ago.Seconds()
	}
	res, err := st.DB().ExecContext(context.Background(), q, at, id)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("claimed %d jobs of project %s (%v), want its one", n, id, err)
	}
}
