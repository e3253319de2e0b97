package pipeline

import (
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// One organization whose sources trickle, running its maximum of projects
// (4, as --max-concurrent's default) on a process of 4 workers, holds 3 of
// them: another organization's project starts within seconds and
// completes (real ffmpeg), while the first organization's fourth waits.
func TestOneOrgCannotHoldEveryWorker(t *testing.T) {
	requireFFmpeg(t)
	slow := trickle(t, time.Second)
	fast := serveFile(t, testVideo(t))
	e := newEnv(t)
	e.cfg.AllowPrivateImports = true
	e.cfg.ImportMinRate = -1 // the trickles keep their workers for the whole test
	r, js := e.processWith(4)
	e.start(r, js)
	if r.cfg.OrgShare != 3 {
		t.Fatalf("OrgShare %d, want 3 of 4 workers", r.cfg.OrgShare)
	}

	var trickling []string
	for range 4 {
		trickling = append(trickling, e.create(apitypes.CreateProjectRequest{VideoURL: slow.URL + "/talk.mp4"}))
	}
	importing := func() (n int) {
		for _, id := range trickling {
			if e.project(id).Stage == apitypes.StageImport {
				n++
			}
		}
		return n
	}
	deadline := time.Now().Add(finishWait)
	for importing() < 3 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := importing(); n != 3 {
		t.Fatalf("%d trickling projects importing, want 3", n)
	}

	created := time.Now()
	other := e.createFor("org-other", apitypes.CreateProjectRequest{VideoURL: fast.URL + "/talk.mp4"})
	// Bounded well past the 10 s asked, so the old behaviour (the other
	// project QUEUED until a trickle ends) fails here, not at finishWait.
	for e.project(other).Stage == apitypes.StageQueued && time.Since(created) < 30*time.Second {
		time.Sleep(20 * time.Millisecond)
	}
	delay := time.Since(created)
	t.Logf("the other organization's project left QUEUED %s after it was created", delay.Round(time.Millisecond))
	if delay > 10*time.Second {
		t.Errorf("the other organization's project waited %s, want under 10 s", delay)
	}
	if n := importing(); n > 3 {
		t.Errorf("%d trickling projects importing beside the other organization's, want at most 3", n)
	}

	p := e.waitDone(other)
	if p.Stage != apitypes.StageComplete {
		t.Fatalf("other organization's project: %s (%v), want COMPLETE", p.Stage, deref(p.Error))
	}
	// The share holds with the worker free again: the fourth run waits.
	if n := importing(); n != 3 {
		t.Errorf("%d trickling projects importing after the other finished, want 3 (the share)", n)
	}
}
