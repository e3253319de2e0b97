package copyjobs

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/socialcopy"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// clip is the one clip of project p1 of org-a.
var clip = apitypes.ExportableClip{
	ID: "p1.c01", CurationID: "c01", Title: "Clip 1 of Talk (0:00–0:12)", Description: "0:00 to 0:12 of Talk.",
	Text: "table tests keep cases apart.", Hashtags: "#Go", Keywords: []string{"testing"}, UpdatedAt: "2030-01-01T00:00:00.000Z",
}

// setup is a store holding clip and a RUNNING job for it on TWITTER, in
// a casual tone.
func setup(t *testing.T) (*store.Store, *store.CopyJob) {
	t.Helper()
	st, err := store.Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.ReplaceClips(t.Context(), "p1", "org-a", []apitypes.ExportableClip{clip}); err != nil {
		t.Fatal(err)
	}
	return st, newJob(t, st)
}

func newJob(t *testing.T, st *store.Store) *store.CopyJob {
	t.Helper()
	j := &store.CopyJob{OrgID: "org-a", ProjectID: "p1", ClipID: "c01", PostAccountID: "pa_1", Prompt: "casual", Platform: "TWITTER",
		ClipVersion: clip.UpdatedAt}
	if err := st.CreateCopyJob(t.Context(), j, false); err != nil {
		t.Fatal(err)
	}
	return j
}

func start(t *testing.T, st *store.Store, beforeRun func(context.Context, string)) *Worker {
	t.Helper()
	w, err := New(Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	w.beforeRun = beforeRun
	if err := w.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return w
}

// finished waits until job id is no longer RUNNING and returns it.
func finished(t *testing.T, st *store.Store, id string) *store.CopyJob {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		j, err := st.CopyJob(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status != apitypes.CopyRunning {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still RUNNING", id)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestJobRunsThenCompletes holds a job before its copy is made: it is
// RUNNING then, and COMPLETED with the copy of its clip after.
func TestJobRunsThenCompletes(t *testing.T) {
	st, job := setup(t)
	held, release := make(chan string, 1), make(chan struct{})
	w := start(t, st, func(ctx context.Context, id string) {
		held <- id
		select {
		case <-release:
		case <-ctx.Done():
		}
	})
	w.Submit(job.ID)
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
		got.Hashtags != want.Hashtags || got.ClipVersion != clip.UpdatedAt || got.Error != "" {
		t.Errorf("finished job %+v, want COMPLETED with %+v from clip version %s", got, want, clip.UpdatedAt)
	}
	if got.Title != "clip 1 of talk (0:00–0:12)" {
		t.Errorf("title %q: the casual tone was not applied", got.Title)
	}
}

// TestVanishedClipFails: a job whose clip is gone by the time it runs
// fails, saying which clip.
func TestVanishedClipFails(t *testing.T) {
	st, job := setup(t)
	if err := st.ReplaceClips(t.Context(), "p1", "org-a", nil); err != nil {
		t.Fatal(err)
	}
	start(t, st, nil).Submit(job.ID)
	got := finished(t, st, job.ID)
	if got.Status != apitypes.CopyFailed || !strings.Contains(got.Error, `clip "c01" of project "p1" no longer exists`) || got.Title != "" {
		t.Errorf("job %+v, want FAILED naming the clip", got.API())
	}
}

// TestUnknownPlatformFails: a job for a platform without limits fails with
// the generator's reason.
func TestUnknownPlatformFails(t *testing.T) {
	st, _ := setup(t)
	j := &store.CopyJob{OrgID: "org-a", ProjectID: "p1", ClipID: "c01", PostAccountID: "pa_1", Platform: "MYSPACE"}
	if err := st.CreateCopyJob(t.Context(), j, false); err != nil {
		t.Fatal(err)
	}
	start(t, st, nil).Submit(j.ID)
	if got := finished(t, st, j.ID); got.Status != apitypes.CopyFailed || !strings.Contains(got.Error, "MYSPACE") {
		t.Errorf("job %+v, want FAILED naming the platform", got.API())
	}
}

// TestRestartRunsLeftJobs: a job cut short by Stop stays RUNNING, and so
// does one never submitted; the next worker's Start runs both.
func TestRestartRunsLeftJobs(t *testing.T) {
	st, cut := setup(t)
	unsubmitted := newJob(t, st)
	held := make(chan string, 1)
	first := start(t, st, func(ctx context.Context, id string) {
		held <- id
		<-ctx.Done() // until Stop
	})
	first.Submit(cut.ID)
	<-held
	first.Stop()
	for _, id := range []string{cut.ID, unsubmitted.ID} {
		if j, err := st.CopyJob(t.Context(), id); err != nil || j.Status != apitypes.CopyRunning {
			t.Fatalf("job %s after Stop: %+v, %v; want RUNNING", id, j, err)
		}
	}

	start(t, st, nil)
	for _, id := range []string{cut.ID, unsubmitted.ID} {
		if got := finished(t, st, id); got.Status != apitypes.CopyCompleted || got.Title == "" {
			t.Errorf("job %s after restart: %+v, want COMPLETED with copy", id, got.API())
		}
	}
}

func TestStartTwice(t *testing.T) {
	st, _ := setup(t)
	w := start(t, st, nil)
	if err := w.Start(t.Context()); err == nil {
		t.Error("second Start succeeded")
	}
}
