package pipeline

import (
	"context"
	"sync"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// Restarts are not failures of the project: however often clipperd dies
// mid-run, the project resumes, and every new run starts with no error.
func TestManyRestartsNeverGiveUpAProject(t *testing.T) {
	t.Parallel()
	src := testVideo(t)
	e := newEnv(t)
	const restarts = 5 // more than MaxRetries (3)
	id := e.create(apitypes.CreateProjectRequest{
		VideoURL:     e.upload(src),
		CurationPref: &apitypes.CurationPref{Range: &apitypes.Range{StartSec: f64(0), EndSec: f64(15)}, ClipDurations: [][2]float64{{5, 9}}},
		RenderPref:   &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectSquare},
	})
	var mu sync.Mutex
	var errorsAtClaim []string // errors still set when a new run had started
	for i := range restarts {
		r, js := e.process()
		curating := make(chan struct{})
		var once sync.Once
		r.hook = func(ctx context.Context, point string) {
			if point != string(apitypes.StageCurate) {
				return
			}
			if p, err := e.st.GetProject(context.WithoutCancel(ctx), id); err == nil && p.Error != nil {
				mu.Lock()
				errorsAtClaim = append(errorsAtClaim, *p.Error)
				mu.Unlock()
			}
			once.Do(func() { close(curating) })
			<-ctx.Done() // die in CURATE
		}
		e.start(r, js)
		e.waitFor(id, func(p *store.Project) bool {
			select {
			case <-curating:
				return true
			default:
			}
			if p.Stage == apitypes.StageStalled && p.RetryAt.IsZero() {
				t.Fatalf("restart %d: the project stalled for good: %v", i, deref(p.Error))
			}
			return false
		})
		stop(r, js)
	}
	e.runner()
	p := e.waitDone(id)
	if p.Stage != apitypes.StageComplete {
		t.Fatalf("after %d restarts: stage %s error %v, want COMPLETE", restarts, p.Stage, deref(p.Error))
	}
	if p.StallCount == nil || *p.StallCount != restarts || p.FailureStalls != 0 {
		t.Errorf("stallCount %v failureStalls %d, want %d and 0", deref(p.StallCount), p.FailureStalls, restarts)
	}
	if p.Error != nil {
		t.Errorf("error %q left on a COMPLETE project", *p.Error)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(errorsAtClaim) > 0 {
		t.Errorf("runs started with the error of the last one still set: %q", errorsAtClaim)
	}
}

// A retried project is QUEUED again without the error of its last run; the
// stall count stays.
func TestRequeueClearsErrorKeepsStallCount(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	id := e.create(apitypes.CreateProjectRequest{VideoURL: "up_x"})
	msg, two := "IMPORT failed: the server answered 503", int64(2)
	if _, err := e.st.MutateProject(context.Background(), id, func(p *store.Project) error {
		p.Stage, p.Error, p.StallCount, p.RetryAt = apitypes.StageStalled, &msg, &two, e.st.Now()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := r.requeue(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	p := e.project(id)
	if p.Stage != apitypes.StageQueued || p.Error != nil || p.StallCount == nil || *p.StallCount != 2 || !p.RetryAt.IsZero() {
		t.Errorf("after requeue: stage %s error %v stallCount %v retryAt %q; want QUEUED, no error, 2, none",
			p.Stage, deref(p.Error), deref(p.StallCount), p.RetryAt)
	}
}
