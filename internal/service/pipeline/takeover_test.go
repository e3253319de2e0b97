package pipeline

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// A process that stops renewing its lease mid-run (paused, cut off from
// the database, or killed) loses its project to another process, which
// runs it to COMPLETE; when the first process wakes and carries on, its
// run writes nothing: the project is charged once, has its clips once and
// sends its conclusion once.
func TestTakeoverAfterLeaseEndsRunsOnce(t *testing.T) {
	t.Parallel()
	onEachEngine(t, takeover)
}

func takeover(t *testing.T, e *env, src string) {
	hooks := newHookRecorder(t)
	e.startDispatcher()

	// Process A renews every 20 minutes: in this test, never. It has one
	// worker, paused below, so it is frozen as a whole: with a free one, its
	// own watchdog's requeue could go to it (a resumed run takes a free
	// worker), and that run would hold the project for A's hour-long lease,
	// not B's (seen under load, where A's requeue beat B's start).
	e.cfg.Lease = time.Hour
	rA, jsA := e.processWith(1)
	rendering, wake := make(chan struct{}), make(chan struct{})
	var pauseOnce sync.Once
	rA.hook = func(_ context.Context, point string) {
		if point == "render 0" {
			pauseOnce.Do(func() {
				close(rendering)
				<-wake // paused in RENDER, deaf to everything
			})
		}
	}
	e.start(rA, jsA)
	// A failure before A wakes still wakes it, so the cleanup stopping A
	// (registered before this one, so run after it) does not wait forever.
	var wakeOnce sync.Once
	wakeA := func() { wakeOnce.Do(func() { close(wake) }) }
	t.Cleanup(wakeA)
	id := e.create(apitypes.CreateProjectRequest{
		VideoURL:          e.upload(src),
		CurationPref:      &apitypes.CurationPref{Range: &apitypes.Range{StartSec: f64(0), EndSec: f64(20)}, ClipDurations: [][2]float64{{5, 9}}},
		RenderPref:        &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectSquare},
		ConclusionActions: []apitypes.ConclusionAction{{Type: apitypes.ActionWebhook, URL: hooks.srv.URL + "/done"}},
	})
	select {
	case <-rendering:
	case <-time.After(finishWait):
		t.Fatalf("never reached RENDER; stage %s", e.project(id).Stage)
	}
	// A's lease ends while it is paused.
	if _, err := e.st.MutateProject(context.Background(), id, func(p *store.Project) error {
		p.LeaseUntil = time.Now().Add(-time.Second)
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	// Process B's watchdog queues the project again; B runs it.
	e.cfg.Lease = DefaultLease
	e.runner()
	p := e.waitDone(id)
	if p.Stage != apitypes.StageComplete || p.RunToken != 1 || p.StallCount == nil || *p.StallCount != 1 || p.FailureStalls != 0 {
		t.Fatalf("after the takeover: stage %s token %d stallCount %v failureStalls %d error %v; want COMPLETE by run 1, one stall, no failure",
			p.Stage, p.RunToken, deref(p.StallCount), p.FailureStalls, deref(p.Error))
	}
	clips, err := e.st.ListClips(context.Background(), id, 0, 100)
	if err != nil || len(clips) == 0 {
		t.Fatalf("clips %v, %v", clips, err)
	}

	// A wakes and carries on; its run stops at its next write.
	wakeA()
	deadline := time.Now().Add(finishWait)
	for !slices.Equal(pipelineJobs(t, rA), []string{"completed 0", "completed 1"}) {
		if time.Now().After(deadline) {
			t.Fatalf("pipeline jobs %v, want both runs' completed", pipelineJobs(t, rA))
		}
		time.Sleep(50 * time.Millisecond)
	}

	after := e.project(id)
	if after.Stage != apitypes.StageComplete || after.RunToken != 1 || !after.UpdatedAt.Equal(p.UpdatedAt) {
		t.Errorf("the stale run changed the project: stage %s token %d updated %v (was %v)", after.Stage, after.RunToken, after.UpdatedAt, p.UpdatedAt)
	}
	again, err := e.st.ListClips(context.Background(), id, 0, 100)
	if err != nil || !slices.EqualFunc(again, clips, func(a, b store.Clip) bool { return a.ID == b.ID && a.RunID == b.RunID }) {
		t.Errorf("clips after the stale run %v (%v), want run 1's %v", again, err, clips)
	}
	used, err := e.st.CreditsUsed(context.Background(), testOrg)
	if err != nil || used != after.CreditsCharged || used == 0 {
		t.Errorf("credits used %d (%v), project charged %d: want them equal, charged once", used, err, after.CreditsCharged)
	}
	ds, err := e.st.ProjectDeliveries(context.Background(), id)
	if err != nil || len(ds) != 1 {
		t.Errorf("deliveries %+v (%v), want the one COMPLETE webhook", ds, err)
	}
	if reqs := hooks.wait(t, 1); len(reqs) != 1 {
		t.Errorf("webhook requests %d, want one", len(reqs))
	}
}
