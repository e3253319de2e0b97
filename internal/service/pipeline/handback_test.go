package pipeline

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// Issue 27: a run handed back by a stopping worker goes to another worker
// with a free slot, even when its organization holds its share of that
// worker's slots already. Two processes A and B over one store, 2 pipeline
// workers each (OrgShare 1): B runs one project of the organization, held
// in CURATE until the test releases it (a long render), A another, held
// until its process stops. A stops without grace: its run is handed back,
// and B, at the organization's share with one worker free, takes it and
// completes it while its own first run is still held. Before, B put the
// handed-back run back every second (orgSnooze) until its own run ended or
// A came back.
func TestHandedBackRunTakesAnotherWorkersFreeSlot(t *testing.T) {
	t.Parallel()
	requireFFmpeg(t)
	src := testVideo(t)
	e := newEnv(t)
	req := func() apitypes.CreateProjectRequest {
		return apitypes.CreateProjectRequest{
			VideoURL:     e.upload(src),
			CurationPref: &apitypes.CurationPref{Range: &apitypes.Range{StartSec: f64(0), EndSec: f64(15)}, ClipDurations: [][2]float64{{5, 9}}},
			RenderPref:   &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectSquare},
		}
	}

	rB, jsB := e.processWith(2)
	if rB.cfg.OrgShare != 1 {
		t.Fatalf("OrgShare %d, want 1 of 2 workers", rB.cfg.OrgShare)
	}
	release := make(chan struct{})
	defer close(release)
	var curatingOnB atomic.Int32
	rB.hook = func(ctx context.Context, point string) {
		if point == string(apitypes.StageCurate) && curatingOnB.Add(1) == 1 {
			select { // B's first run holds its worker, as a long render does
			case <-release:
			case <-ctx.Done():
			}
		}
	}
	e.start(rB, jsB)
	onB := e.create(req())
	e.waitInStage(apitypes.StageCurate, []string{onB}, 1)

	// B is at the organization's share, so the next run goes to A.
	rA, jsA := e.processWith(2)
	rA.hook = func(ctx context.Context, point string) {
		if point == string(apitypes.StageCurate) {
			<-ctx.Done() // until A stops
		}
	}
	e.start(rA, jsA)
	onA := e.create(req())
	e.waitInStage(apitypes.StageCurate, []string{onA}, 1)

	stopped := time.Now()
	stop(rA, jsA)
	e.waitFor(onA, func(p *store.Project) bool { return p.Stage != apitypes.StageQueued })
	t.Logf("the handed-back run left QUEUED on B %s after A stopped", time.Since(stopped).Round(time.Millisecond))
	p := e.waitDone(onA)
	if p.Stage != apitypes.StageComplete || p.FailureStalls != 0 || deref(p.StallCount) != int64(1) || p.RunToken != 1 {
		t.Fatalf("handed-back project: %s (%v), failureStalls %d, stallCount %v, run token %d; want COMPLETE on B, one interruption, no failure",
			p.Stage, deref(p.Error), p.FailureStalls, deref(p.StallCount), p.RunToken)
	}
	if got := e.project(onB).Stage; got != apitypes.StageCurate {
		t.Errorf("B's own run is in %s, want still held in CURATE: the handed-back run took B's free worker", got)
	}
}

// A tool killed by the signal that stops the whole service (systemd's
// KillMode=control-group signals every process of the unit, a tool's own
// group included) dies before the stop cancels the run: a stage that fails
// while the process stops is handed back, not counted as a failure of the
// project. The same death while the process runs on is a failure (the
// control), once the render piece has failed every attempt.
func TestStageFailingWhileStoppingIsHandedBack(t *testing.T) {
	requireFFmpeg(t)
	src := testVideo(t)
	for _, stopping := range []bool{true, false} {
		name := map[bool]string{true: "stopping", false: "running"}[stopping]
		t.Run(name, func(t *testing.T) {
			kill := signalledFFmpeg(t)
			e := newEnv(t)
			r, js := e.process()
			var once sync.Once
			var attempts atomic.Int32
			r.hook = func(ctx context.Context, point string) {
				if point != "render 0" {
					return
				}
				if !stopping {
					// Running on, a piece is tried pieceMaxFailures times
					// before it fails the run: each of them dies.
					if attempts.Add(1) <= pieceMaxFailures {
						kill()
					}
					return
				}
				once.Do(func() {
					// What the server does first on SIGTERM; the job
					// system still lets the run go on (its grace).
					_ = r.Stop(ctx)
					kill() // the render's ffmpeg dies of SIGTERM
				})
			}
			e.start(r, js)
			id := e.create(apitypes.CreateProjectRequest{
				VideoURL:     e.upload(src),
				CurationPref: &apitypes.CurationPref{Range: &apitypes.Range{StartSec: f64(0), EndSec: f64(15)}, ClipDurations: [][2]float64{{5, 9}}},
				RenderPref:   &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectSquare},
			})
			// The first outcome of the killed render: a stall, or a hand-back.
			p := e.waitFor(id, func(p *store.Project) bool { return p.StallCount != nil })
			if stopping && (p.FailureStalls != 0 || p.Stage == apitypes.StageStalled) {
				t.Fatalf("stopping: %s (%v), failureStalls %d; want handed back, no failure counted", p.Stage, deref(p.Error), p.FailureStalls)
			}
			if !stopping && (p.FailureStalls != 1 || p.Stage != apitypes.StageStalled) {
				t.Fatalf("running: %s (%v), failureStalls %d; want STALLED, one failure", p.Stage, deref(p.Error), p.FailureStalls)
			}
			e.runner() // a process whose loop runs: it retries the stall
			if p = e.waitDone(id); p.Stage != apitypes.StageComplete || deref(p.StallCount) != int64(1) {
				t.Fatalf("project: %s (%v), stallCount %v; want COMPLETE after one stall", p.Stage, deref(p.Error), deref(p.StallCount))
			}
		})
	}
}

// signalledFFmpeg puts an ffmpeg first on PATH that runs the real one,
// except once after the returned func is called: that run dies of SIGTERM,
// as ffmpeg signalled with clipperd's whole unit does.
func signalledFFmpeg(t *testing.T) (killNext func()) {
	t.Helper()
	real, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "kill-next")
	script := "#!/bin/sh\nif rm '" + marker + "' 2>/dev/null; then kill -TERM $$; fi\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "ffmpeg"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() {
		if err := os.WriteFile(marker, nil, 0o644); err != nil {
			t.Error(err)
		}
	}
}
