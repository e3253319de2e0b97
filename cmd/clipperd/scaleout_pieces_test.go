package main

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/outbound/webhooktest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/pipeline"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// Issue 30: a worker killed with SIGKILL while it renders a piece of a run
// it does not hold. worker-1 (one slot) runs the project (a source long
// enough for several clips); worker-2, started once the run has begun, takes render
// pieces through their jobs and is killed while it renders one. The run is
// not interrupted: once the piece's lease ends the run claims that piece
// again (attempt 2) and renders it; the project completes with each clip
// once in the bucket, charged once, its webhook delivered once.
func TestScaleOutKill9WorkerWhileItRendersAPiece(t *testing.T) {
	// Alone it mostly waits on its processes: run beside the others like it.
	t.Parallel()
	c := newCluster(t)
	hooks := webhooktest.New(t, 0)
	upload := c.upload(4 * time.Minute) // about three clips: curation makes one per 90 s
	// One slot: the run's, so the pieces go to worker-2's free slots.
	runner := c.startWorker("worker-1", -1, "--workers", "1")
	ids := c.createProjects(upload, 1, hooks.URL+"/done")
	project := ids[0]
	for deadline := time.Now().Add(4 * time.Minute); !runner.ran(project); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s never ran %s", runner.name, project)
		}
	}
	helper := c.startWorker("worker-2", -1)
	index := -1
	for deadline := time.Now().Add(4 * time.Minute); index < 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s never started a piece of %s", helper.name, project)
		}
		index = startedPiece(helper.logText(), project)
	}
	helper.kill(t)
	st := c.openStore(t)
	pieces, err := st.ProjectPieces(t.Context(), project, pipeline.PieceRender)
	st.Close()
	if err != nil || index >= len(pieces) {
		t.Fatalf("the render pieces of %s: %d (%v)", project, len(pieces), err)
	}
	killedMidPiece := pieces[index].State == store.PieceRunning
	t.Logf("killed %s while it rendered piece %d of %d of %s (the piece %s at the kill)", helper.name, index, len(pieces), project, pieces[index].State)

	done := c.waitComplete(ids, 6*time.Minute)
	if p := done[project]; p.StallCount != nil && *p.StallCount != 0 {
		t.Errorf("project %s: stallCount %d, want the run not interrupted (only its piece)", project, *p.StallCount)
	}
	redone := regexp.MustCompile(fmt.Sprintf(`msg="piece started".*? project=%s piece=%s index=%d attempt=2`, project, pipeline.PieceRender, index))
	if killedMidPiece && !redone.MatchString(runner.logText()) {
		t.Errorf("%s never claimed the killed piece again (no %q in its log)", runner.name, redone)
	}
	waitWebhooks(t, hooks, len(ids))
	runner.stop(t)
	c.checkOnce(t, done, hooks)
}

// pieceStarted is the pipeline's log line of a claim of a piece.
var pieceStarted = regexp.MustCompile(`msg="piece started".*? project=(\S+) piece=render index=(\d+) attempt=1`)

// startedPiece is the index of the first render piece of project a
// worker's log shows it started, or -1.
func startedPiece(log, project string) int {
	for _, m := range pieceStarted.FindAllStringSubmatch(log, -1) {
		if m[1] == project {
			i, _ := strconv.Atoi(m[2])
			return i
		}
	}
	return -1
}
