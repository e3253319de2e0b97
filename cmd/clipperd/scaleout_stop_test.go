package main

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/outbound/webhooktest"
)

// Issue 27's stop on several machines: 1 API node and 2 workers of 2
// pipeline workers each (so --org-workers' default share is 1 per
// worker), one organization's two projects running, one on each worker.
// SIGTERM to the whole process group of the worker that renders (what
// `timeout` sends): its ffmpeg, in a group of its own, renders on through
// the grace period; the run is then handed back without a failure, and
// the other worker, at the organization's share with a worker free,
// takes it at once instead of waiting for its own run to end or the
// stopped worker to return. Both projects complete, each charged once,
// the handed-back one with one interruption and no failure. The test logs
// the time from the signal to the run continuing on the other worker.
func TestScaleOutGroupStopHandsBackToTheOtherWorker(t *testing.T) {
	// Alone it mostly waits on its processes: run beside the others like it.
	t.Parallel()
	c := newCluster(t)
	// A grace of 1 s, well under the 8-9 s a render of this source takes:
	// with the default 10 s the signalled worker could finish the render
	// inside it (it did on a loaded CI machine) and hand nothing back.
	workers := []*node{
		c.startWorker("worker-1", -1, "--workers", "2", "--shutdown-grace", "1s"),
		c.startWorker("worker-2", -1, "--workers", "2", "--shutdown-grace", "1s"),
	}
	hooks := webhooktest.New(t, 0)
	source := c.upload(90 * time.Second)
	// The two projects must run at once, one on each worker. On a loaded
	// machine one may finish before the other is claimed: then the pair is
	// made again (every project is checked at the end all the same).
	var ids []string
	var stopped *node
	var project string
	for attempt := 1; stopped == nil; attempt++ {
		pair := c.createProjects(source, 2, hooks.URL+"/done")
		ids = append(ids, pair...)
		stopped, project = renderingWithBothBusy(t, c, workers, pair)
		if stopped == nil {
			if attempt == 3 {
				t.Fatal("three pairs of projects never ran at once, one on each worker")
			}
			t.Logf("attempt %d: one project of %v finished before the other ran; another pair", attempt, pair)
		}
	}
	other := workers[0]
	if other == stopped {
		other = workers[1]
	}
	signalled := time.Now()
	if err := syscall.Kill(-stopped.cmd.Process.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	stoppedAfter := make(chan time.Duration, 1)
	go func() { <-stopped.done; stoppedAfter <- time.Since(signalled) }()
	for deadline := time.Now().Add(4 * time.Minute); !other.ran(project); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s never ran %s, handed back by %s", other.name, project, stopped.name)
		}
	}
	t.Logf("%s's run continued on %s %s after the group's SIGTERM (over the organization's share there: %t)", project, other.name,
		time.Since(signalled).Round(100*time.Millisecond), strings.Contains(other.logText(), "takes a free worker over its organization's share"))
	if err := stopped.wait(); err != nil {
		t.Errorf("%s after its group's SIGTERM: %v, want status 0", stopped.name, err)
	}
	t.Logf("%s stopped %s after the signal", stopped.name, (<-stoppedAfter).Round(100*time.Millisecond))

	done := c.waitComplete(ids, 6*time.Minute)
	if p := done[project]; p.StallCount == nil || *p.StallCount != 1 {
		t.Errorf("project %s: stallCount %v, want the one interruption", project, p.StallCount)
	}
	st := c.openStore(t)
	p, err := st.GetProject(t.Context(), project)
	if err != nil || p.FailureStalls != 0 {
		t.Errorf("project %s: failureStalls %d (%v), want the stop not counted as a failure", project, p.FailureStalls, err)
	}
	st.Close()
	waitWebhooks(t, hooks, len(ids))
	other.stop(t)
	c.checkOnce(t, done, hooks)
}

// renderingWithBothBusy waits until both projects of ids run and one
// worker's log shows its project in RENDER, and returns that worker and
// project; nil when one of them finished before both ran.
func renderingWithBothBusy(t *testing.T, c *cluster, workers []*node, ids []string) (*node, string) {
	t.Helper()
	for deadline := time.Now().Add(4 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		running := 0
		for _, id := range ids {
			p, err := c.client.GetProject(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			switch p.Stage {
			case apitypes.StageCurate, apitypes.StageRefine, apitypes.StageRender:
				running++
			case apitypes.StageComplete, apitypes.StageUpload:
				t.Logf("project %s reached %s before a worker could be stopped", id, p.Stage)
				return nil, ""
			case apitypes.StageStalled:
				t.Fatalf("project %s STALLED before a worker could be stopped", id)
			}
		}
		if running < len(ids) {
			continue
		}
		for _, w := range workers {
			if project := w.rendering(); project != "" {
				return w, project
			}
		}
	}
	t.Fatal("the two projects never ran at once with one rendering")
	return nil, ""
}
