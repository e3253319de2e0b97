package copyjobs

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs/jobstest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/socialcopy"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// clip is the one clip of project p1 of org-a.
var clip = store.Clip{
	ID: "p1.c01", CurationID: "c01", Title: "Clip 1 of Talk (0:00–0:12)", Description: "0:00 to 0:12 of Talk.",
	Text: "table tests keep cases apart.", Hashtags: "#Go", Keywords: []string{"testing"}, UpdatedAt: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC),
}

// setup is a store holding clip, the job system on it with the worker
// registered (not started), and a RUNNING job for the clip on TWITTER, in
// a casual tone.
func setup(t *testing.T) (*store.Store, *Worker, *store.CopyJob) {
	t.Helper()
	st, err := store.Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.ReplaceClips(t.Context(), "p1", "org-a", []store.Clip{clip}); err != nil {
		t.Fatal(err)
	}
	w := newWorker(t, st)
	return st, w, newJob(t, st, w)
}

// newWorker opens a job system on st, as a (re)started server does, and
// registers a worker with it; the test's end stops it before st closes.
func newWorker(t *testing.T, st *store.Store) *Worker {
	t.Helper()
	js, err := jobs.Open(t.Context(), jobs.Config{Store: st, FetchPollInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { js.Stop(context.Background()) })
	w, err := New(Config{Store: st, Jobs: js})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// newJob creates a RUNNING job with its job in w's job system.
func newJob(t *testing.T, st *store.Store, w *Worker) *store.CopyJob {
	t.Helper()
	j := &store.CopyJob{OrgID: "org-a", ProjectID: "p1", ClipID: "c01", PostAccountID: "pa_1", Prompt: "casual", Platform: "TWITTER",
		ClipVersion: clip.Version()}
	if err := st.CreateCopyJob(t.Context(), j, false, w.Enqueue(j)); err != nil {
		t.Fatal(err)
	}
	return j
}

// start runs w's job system, with beforeRun.
func start(t *testing.T, w *Worker, beforeRun func(context.Context, string)) {
	t.Helper()
	w.beforeRun = beforeRun
	if err := w.jobs.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// jobStates lists the states of the copy queue's jobs, oldest first.
func jobStates(t *testing.T, w *Worker) []string {
	t.Helper()
	return jobstest.States(t, w.jobs, jobs.QueueCopy)
}

// finished waits until job id is no longer RUNNING and returns it.
func finished(t *testing.T, st *store.Store, id string) *store.CopyJob {
	t.Helper()
	var j *store.CopyJob
	storetest.Eventually(t, "job "+id+" no longer RUNNING", func() bool {
		var err error
		if j, err = st.CopyJob(t.Context(), id); err != nil {
			t.Fatal(err)
		}
		return j.Status != apitypes.CopyRunning
	})
	return j
}

// TestJobRunsThenCompletes holds a job before its copy is made: it is
// RUNNING then, and COMPLETED with the copy of its clip after.
func TestJobRunsThenCompletes(t *testing.T) {
	st, w, job := setup(t)
	held, release := make(chan string, 1), make(chan struct{})
	start(t, w, func(ctx context.Context, id string) {
		held <- id
		select {
		case <-release:
		case <-ctx.Done():
		}
	})
	if id := <-held; id != job.ID {
		t.Fatalf("held job %s, want %s", id, job.ID)
	}
	if j, err := st.CopyJob(t.Context(), job.ID); err != nil || j.API() != (apitypes.SocialCopyJob{JobID: job.ID, Status: apitypes.CopyRunning}) {
		t.Errorf("held job %+v, %v; want RUNNING without copy", j.API(), err)
	}
	close(release)

	got := finished(t, st, job.ID)
	want, err := socialcopy.Generate(socialcopy.Clip{Title: clip.Title, Description: clip.Description, Text: clip.Text,
		Hashtags: clip.Hashtags, Keywords: clip.Keywords}, "TWITTER", "casual")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != apitypes.CopyCompleted || got.Cached || got.Title != want.Title || got.Description != want.Description ||
		got.Hashtags != want.Hashtags || got.ClipVersion != clip.Version() || got.Error != "" {
		t.Errorf("finished job %+v, want COMPLETED with %+v from clip version %s", got, want, clip.Version())
	}
	if got.Title != "clip 1 of talk (0:00–0:12)" {
		t.Errorf("title %q: the casual tone was not applied", got.Title)
	}
	// The row's job completed with it, on its first attempt.
	if states := jobStates(t, w); !slices.Equal(states, []string{"completed/1"}) {
		t.Errorf("jobs %v; want one completed on attempt 1", states)
	}
}

// TestVanishedClipFails: a job whose clip is gone by the time it runs
// fails, saying which clip.
func TestVanishedClipFails(t *testing.T) {
	st, w, job := setup(t)
	if err := st.ReplaceClips(t.Context(), "p1", "org-a", nil); err != nil {
		t.Fatal(err)
	}
	start(t, w, nil)
	got := finished(t, st, job.ID)
	if got.Status != apitypes.CopyFailed || !strings.Contains(got.Error, `clip "c01" of project "p1" no longer exists`) || got.Title != "" {
		t.Errorf("job %+v, want FAILED naming the clip", got.API())
	}
}

// TestUnknownPlatformFails: a job for a platform without limits fails with
// the generator's reason.
func TestUnknownPlatformFails(t *testing.T) {
	st, w, _ := setup(t)
	j := &store.CopyJob{OrgID: "org-a", ProjectID: "p1", ClipID: "c01", PostAccountID: "pa_1", Platform: "MYSPACE"}
	if err := st.CreateCopyJob(t.Context(), j, false, w.Enqueue(j)); err != nil {
		t.Fatal(err)
	}
	start(t, w, nil)
	if got := finished(t, st, j.ID); got.Status != apitypes.CopyFailed || !strings.Contains(got.Error, "MYSPACE") {
		t.Errorf("job %+v, want FAILED naming the platform", got.API())
	}
}

// TestRestartRunsLeftJobs: a job cut short by a stop stays RUNNING, and so
// does one stored before copy jobs ran on the job system (no job of its
// own); the next start runs both, each once.
func TestRestartRunsLeftJobs(t *testing.T) {
	st, first, cut := setup(t)
	older := &store.CopyJob{OrgID: "org-a", ProjectID: "p1", ClipID: "c01", PostAccountID: "pa_1", Prompt: "formal", Platform: "TWITTER",
		ClipVersion: clip.Version()}
	if err := st.CreateCopyJob(t.Context(), older, false, nil); err != nil {
		t.Fatal(err)
	}
	held := make(chan string, 1)
	start(t, first, func(ctx context.Context, id string) {
		held <- id
		<-ctx.Done() // until the stop
	})
	if id := <-held; id != cut.ID {
		t.Fatalf("held %s, want %s", id, cut.ID)
	}
	grace, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	first.jobs.Stop(grace)
	cancel()
	for _, id := range []string{cut.ID, older.ID} {
		if j, err := st.CopyJob(t.Context(), id); err != nil || j.Status != apitypes.CopyRunning {
			t.Fatalf("job %s after the stop: %+v, %v; want RUNNING", id, j, err)
		}
	}
	if states := jobStates(t, first); !slices.Equal(states, []string{"available/0"}) {
		t.Errorf("jobs after the stop %v; want the cut job handed back, its attempt not counted", states)
	}

	next := newWorker(t, st)
	for range 2 { // a second adoption adds nothing
		if err := next.Adopt(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	start(t, next, nil)
	for _, id := range []string{cut.ID, older.ID} {
		if got := finished(t, st, id); got.Status != apitypes.CopyCompleted || got.Title == "" {
			t.Errorf("job %s after restart: %+v, want COMPLETED with copy", id, got.API())
		}
	}
	storetest.Eventually(t, "two jobs after the restart, each completed on attempt 1", func() bool {
		return slices.Equal(jobStates(t, next), []string{"completed/1", "completed/1"})
	})
}

// TestOneWorkerPerJobSystem: a kind registers once per job system.
func TestOneWorkerPerJobSystem(t *testing.T) {
	st, w, _ := setup(t)
	if _, err := New(Config{Store: st, Jobs: w.jobs}); err == nil || !strings.Contains(err.Error(), "social_copy") {
		t.Errorf("second worker on one job system: %v; want an error naming the kind", err)
	}
}
