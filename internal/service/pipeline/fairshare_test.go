package pipeline

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// startDelay creates a project of org from req and returns how long it
// stayed QUEUED: bounded at 30 s, well past the 10 s the tests allow, so
// a project that never starts fails here, not at finishWait.
func (e *env) startDelay(org string, req apitypes.CreateProjectRequest) (string, time.Duration) {
	e.t.Helper()
	created := time.Now()
	id := e.createFor(org, req)
	for e.project(id).Stage == apitypes.StageQueued && time.Since(created) < 30*time.Second {
		time.Sleep(20 * time.Millisecond)
	}
	return id, time.Since(created)
}

// inStage counts the projects of ids in stage.
func (e *env) inStage(stage apitypes.Stage, ids []string) (n int) {
	e.t.Helper()
	for _, id := range ids {
		if e.project(id).Stage == stage {
			n++
		}
	}
	return n
}

// waitInStage waits until n projects of ids are in stage.
func (e *env) waitInStage(stage apitypes.Stage, ids []string, n int) {
	e.t.Helper()
	deadline := time.Now().Add(finishWait)
	for e.inStage(stage, ids) < n && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := e.inStage(stage, ids); got != n {
		e.t.Fatalf("%d projects in %s, want %d", got, stage, n)
	}
}

// The case: one organization runs its maximum of projects (4, as
// --max-concurrent's default) whose sources trickle 10 bytes a second, on
// a process of 4 workers. Their imports hold import workers, not render
// slots, even with the organization allowed every worker (OrgShare 4):
// another organization's project starts at once and completes (real
// ffmpeg) while the four still import.
func TestSlowImportsHoldNoRenderSlot(t *testing.T) {
	t.Parallel()
	requireFFmpeg(t)
	slow := trickle(t, time.Second)
	fast := serveFile(t, testVideo(t))
	e := newEnv(t)
	e.cfg.AllowPrivateImports = true
	e.cfg.ImportMinRate = -1 // the trickles keep their workers for the whole test
	e.cfg.OrgShare = 4
	r, js := e.processWith(4)
	e.start(r, js)

	var trickling []string
	for range 4 {
		trickling = append(trickling, e.create(apitypes.CreateProjectRequest{VideoURL: slow.URL + "/talk.mp4"}))
	}
	e.waitInStage(apitypes.StageImport, trickling, 4)

	other, delay := e.startDelay("org-other", apitypes.CreateProjectRequest{VideoURL: fast.URL + "/talk.mp4"})
	t.Logf("the other organization's project left QUEUED %s after it was created", delay.Round(time.Millisecond))
	if delay > 10*time.Second {
		t.Errorf("the other organization's project waited %s, want under 10 s", delay)
	}
	if p := e.waitDone(other); p.Stage != apitypes.StageComplete {
		t.Fatalf("other organization's project: %s (%v), want COMPLETE", p.Stage, deref(p.Error))
	}
	if n := e.inStage(apitypes.StageImport, trickling); n != 4 {
		t.Errorf("%d trickling projects importing, want all 4 still", n)
	}
}

// One organization holding 3 of a process's 4 render workers (its share,
// OrgShare's default) with a fourth project queued: another organization's
// project takes the fourth worker within seconds and completes, and the
// first organization's fourth waits for one of its own to end.
func TestOneOrgHoldsAtMostItsShareOfWorkers(t *testing.T) {
	t.Parallel()
	requireFFmpeg(t)
	src := testVideo(t)
	e := newEnv(t)
	release := make(chan struct{})
	var held atomic.Int32
	r, js := e.processWith(4)
	if r.cfg.OrgShare != 3 {
		t.Fatalf("OrgShare %d, want 3 of 4 workers", r.cfg.OrgShare)
	}
	// The first three runs to reach CURATE hold their workers until
	// released, as long renders do.
	r.hook = func(ctx context.Context, point string) {
		if point == string(apitypes.StageCurate) && held.Add(1) <= 3 {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
	}
	e.start(r, js)

	var first []string
	for range 4 {
		first = append(first, e.create(apitypes.CreateProjectRequest{VideoURL: e.upload(src)}))
	}
	e.waitInStage(apitypes.StageCurate, first, 3)
	// A run enters CURATE in the store a moment before it reaches the hook:
	// wait for the hook too, or the other organization's run could take the
	// third hold while a late first-organization run went through.
	storetest.Eventually(t, "three runs held in CURATE", func() bool { return held.Load() >= 3 })

	other, delay := e.startDelay("org-other", apitypes.CreateProjectRequest{VideoURL: e.uploadFor("org-other", src)})
	t.Logf("the other organization's project left QUEUED %s after it was created", delay.Round(time.Millisecond))
	if delay > 10*time.Second {
		t.Errorf("the other organization's project waited %s, want under 10 s", delay)
	}
	if n := e.inStage(apitypes.StageQueued, first); n != 1 {
		t.Errorf("%d of the first organization's projects QUEUED, want 1 (its fourth, over its share)", n)
	}
	if p := e.waitDone(other); p.Stage != apitypes.StageComplete {
		t.Fatalf("other organization's project: %s (%v), want COMPLETE", p.Stage, deref(p.Error))
	}
	close(release)
	for _, id := range first {
		if p := e.waitDone(id); p.Stage != apitypes.StageComplete {
			t.Errorf("project %s: %s (%v), want COMPLETE", id, p.Stage, deref(p.Error))
		}
	}
}

// A project from a link runs in two legs on both engines: its import on
// the import queue, which hands it (source recorded, token raised) to its
// run on the pipeline queue in one transaction; it completes, charged once.
func TestImportLegHandsOffToRun(t *testing.T) {
	t.Parallel()
	requireFFmpeg(t)
	onEachEngine(t, handOffRun)
}

func handOffRun(t *testing.T, e *env, src string) {
	link := serveFile(t, src).URL + "/talk.mp4"
	e.cfg.AllowPrivateImports = true
	r, js := e.process()
	e.start(r, js)
	id := e.create(apitypes.CreateProjectRequest{VideoURL: link, CurationPref: &apitypes.CurationPref{Range: &apitypes.Range{StartSec: f64(5), EndSec: f64(20)}}})
	p := e.waitDone(id)
	if p.Stage != apitypes.StageComplete || p.RunToken != 1 || p.SourceKey == "" || deref(p.StallCount) != nil {
		t.Fatalf("project: %s (%v), run token %d, source %q, stallCount %v; want COMPLETE after one hand-off (token 1), no stall",
			p.Stage, deref(p.Error), p.RunToken, p.SourceKey, deref(p.StallCount))
	}
	for queue, kind := range map[string]string{jobs.QueueImport: "project_import", jobs.QueuePipeline: "project_run"} {
		// A job is marked completed just after its work returns.
		var recent []jobs.Info
		for deadline := time.Now().Add(finishWait); ; time.Sleep(20 * time.Millisecond) {
			var err error
			if recent, err = js.Recent(t.Context(), queue, 10); err != nil {
				t.Fatal(err)
			}
			// The run's pieces share the pipeline queue.
			recent = slices.DeleteFunc(recent, func(j jobs.Info) bool { return j.Kind == (pieceArgs{}).Kind() })
			if len(recent) != 1 || recent[0].State != "running" || time.Now().After(deadline) {
				break
			}
		}
		if len(recent) != 1 || recent[0].Kind != kind || recent[0].State != "completed" || !strings.Contains(recent[0].Args, id) {
			t.Errorf("%s queue: %+v, want one completed %s of %s", queue, recent, kind, id)
		}
	}
	used, err := e.st.CreditsUsed(t.Context(), testOrg)
	if err != nil || used != quota.ProjectCredits(15) {
		t.Errorf("credits used %d (%v), want %d, once", used, err, quota.ProjectCredits(15))
	}
}
