package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// copyRequest is a job as the API creates it, before the store fills it.
func copyRequest(org, prompt, clipVersion string) *CopyJob {
	return &CopyJob{OrgID: org, ProjectID: "p1", ClipID: "c01", PostAccountID: "pa_1", SubAccountID: "",
		Prompt: prompt, Platform: "TWITTER", ClipVersion: clipVersion}
}

// finish completes a RUNNING job with the given title.
func finish(t *testing.T, s *Store, j *CopyJob, title string) {
	t.Helper()
	j.Status, j.Title, j.Description, j.Hashtags = apitypes.CopyCompleted, title, "d", "#h"
	if err := s.FinishCopyJob(t.Context(), j, nil); err != nil {
		t.Fatal(err)
	}
}

func mustCreateCopyJob(t *testing.T, s *Store, j *CopyJob, regenerate bool) *CopyJob {
	t.Helper()
	if err := s.CreateCopyJob(t.Context(), j, regenerate, nil); err != nil {
		t.Fatal(err)
	}
	return j
}

func TestCopyJobCache(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		s, _ := be.open(t)
		clock := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		s.SetClock(func() time.Time { clock = clock.Add(time.Second); return clock })

		first := mustCreateCopyJob(t, s, copyRequest("org", "formal", "v1"), false)
		if first.Status != apitypes.CopyRunning || first.Cached {
			t.Fatalf("first job %+v, want RUNNING and not cached", first)
		}
		// Nothing to reuse while the first job runs.
		if j := mustCreateCopyJob(t, s, copyRequest("org", "formal", "v1"), false); j.Status != apitypes.CopyRunning {
			t.Errorf("job while the first runs: %s, want RUNNING", j.Status)
		}
		finish(t, s, first, "made once")

		hit := mustCreateCopyJob(t, s, copyRequest("org", "formal", "v1"), false)
		if hit.ID == first.ID || hit.Status != apitypes.CopyCompleted || !hit.Cached || hit.Title != "made once" || hit.Hashtags != "#h" {
			t.Errorf("cached job %+v, want a new id, COMPLETED, cached, the first result", hit)
		}
		stored, err := s.CopyJob(t.Context(), hit.ID)
		if err != nil || *stored != *hit {
			t.Errorf("stored cached job %+v, %v; want %+v", stored, err, hit)
		}

		// Each part of the key, and the clip's version, misses the cache.
		for name, j := range map[string]*CopyJob{
			"another org":      copyRequest("org-2", "formal", "v1"),
			"another prompt":   copyRequest("org", "casual", "v1"),
			"the clip changed": copyRequest("org", "formal", "v2"),
			"another platform": func() *CopyJob { j := copyRequest("org", "formal", "v1"); j.Platform = "YOUTUBE"; return j }(),
			"another clip":     func() *CopyJob { j := copyRequest("org", "formal", "v1"); j.ClipID = "c02"; return j }(),
			"another account":  func() *CopyJob { j := copyRequest("org", "formal", "v1"); j.PostAccountID = "pa_2"; return j }(),
			"another sub":      func() *CopyJob { j := copyRequest("org", "formal", "v1"); j.SubAccountID = "page"; return j }(),
			"another project":  func() *CopyJob { j := copyRequest("org", "formal", "v1"); j.ProjectID = "p2"; return j }(),
		} {
			if mustCreateCopyJob(t, s, j, false); j.Status != apitypes.CopyRunning || j.Cached {
				t.Errorf("%s: %s cached=%v, want RUNNING", name, j.Status, j.Cached)
			}
		}

		// Regenerating bypasses the cache, and its result is the one reused next.
		again := mustCreateCopyJob(t, s, copyRequest("org", "formal", "v1"), true)
		if again.Status != apitypes.CopyRunning || again.Cached {
			t.Fatalf("regenerated job %+v, want RUNNING", again)
		}
		finish(t, s, again, "made twice")
		if j := mustCreateCopyJob(t, s, copyRequest("org", "formal", "v1"), false); !j.Cached || j.Title != "made twice" {
			t.Errorf("after regenerating: cached=%v title %q, want the regenerated result", j.Cached, j.Title)
		}

		// A FAILED job is never reused.
		failed := mustCreateCopyJob(t, s, copyRequest("org", "failing", "v1"), false)
		failed.Status, failed.Error = apitypes.CopyFailed, "the clip is gone"
		if err := s.FinishCopyJob(t.Context(), failed, nil); err != nil {
			t.Fatal(err)
		}
		if j := mustCreateCopyJob(t, s, copyRequest("org", "failing", "v1"), false); j.Status != apitypes.CopyRunning {
			t.Errorf("after a failure: %s, want RUNNING", j.Status)
		}
		if got, _ := s.CopyJob(t.Context(), failed.ID); got.API().Error != "the clip is gone" || got.Status != apitypes.CopyFailed {
			t.Errorf("failed job %+v", got.API())
		}

		// Finishing a job twice keeps the first outcome.
		first.Title = "overwritten"
		if err := s.FinishCopyJob(t.Context(), first, nil); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.CopyJob(t.Context(), first.ID); got.Title != "made once" {
			t.Errorf("finished twice: title %q, want the first outcome", got.Title)
		}
	})
}

func TestRunningCopyJobs(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		s, _ := be.open(t)
		a := mustCreateCopyJob(t, s, copyRequest("org", "", "v1"), false)
		b := mustCreateCopyJob(t, s, copyRequest("org", "", "v1"), false)
		c := mustCreateCopyJob(t, s, copyRequest("org", "", "v1"), false)
		finish(t, s, b, "done")
		ids, err := s.RunningCopyJobs(t.Context())
		if err != nil || !slices.Equal(ids, []string{a.ID, c.ID}) {
			t.Errorf("running jobs %v, %v; want %v", ids, err, []string{a.ID, c.ID})
		}
		if _, err := s.CopyJob(t.Context(), "scj_missing"); !errors.Is(err, ErrNotFound) {
			t.Errorf("missing job: %v, want ErrNotFound", err)
		}
	})
}

// TestCopyJobHooksShareTheTransaction: the enqueue hook runs for a RUNNING
// job only, inside the insert's transaction (its failure leaves no row),
// and the finish hook inside the update's (its failure leaves the job
// RUNNING).
func TestCopyJobHooksShareTheTransaction(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		s, _ := be.open(t)
		refused := errors.New("queue refused")
		var enqueued []string
		enqueue := func(j *CopyJob) TxHook {
			return func(ctx context.Context, tx *sql.Tx) error {
				var n int
				if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM social_copy_jobs WHERE id = ?`, j.ID).Scan(&n); err != nil || n != 1 {
					return fmt.Errorf("the hook's transaction holds %d rows of %s (%v); want the new row", n, j.ID, err)
				}
				enqueued = append(enqueued, j.ID)
				return nil
			}
		}
		lost := copyRequest("org", "lost", "v1")
		if err := s.CreateCopyJob(t.Context(), lost, false, func(context.Context, *sql.Tx) error { return refused }); !errors.Is(err, refused) {
			t.Fatalf("create with a failing hook: %v; want its error", err)
		}
		if _, err := s.CopyJob(t.Context(), lost.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("job whose enqueue failed: %v; want no row", err)
		}

		first := copyRequest("org", "p", "v1")
		if err := s.CreateCopyJob(t.Context(), first, false, enqueue(first)); err != nil {
			t.Fatal(err)
		}
		first.Status, first.Title = apitypes.CopyCompleted, "kept"
		if err := s.FinishCopyJob(t.Context(), first, func(context.Context, *sql.Tx) error { return refused }); !errors.Is(err, refused) {
			t.Fatalf("finish with a failing hook: %v; want its error", err)
		}
		if got, _ := s.CopyJob(t.Context(), first.ID); got.Status != apitypes.CopyRunning {
			t.Errorf("job whose finish hook failed: %s; want RUNNING", got.Status)
		}
		finish(t, s, first, "kept")
		cached := copyRequest("org", "p", "v1")
		if err := s.CreateCopyJob(t.Context(), cached, false, enqueue(cached)); err != nil || !cached.Cached {
			t.Fatalf("cached job %+v: %v", cached, err)
		}
		if !slices.Equal(enqueued, []string{first.ID}) {
			t.Errorf("enqueued %v; want only the RUNNING job %s", enqueued, first.ID)
		}
	})
}

func TestSocialAccountOfOrg(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		s, _ := be.open(t)
		acct, err := s.ConnectSocialAccount(t.Context(), "org", apitypes.SocialAccount{Platform: "LINKEDIN", ExtUserName: "Me", SubAccountID: "urn:li:person:1"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.GetSocialAccount(t.Context(), "org", acct.PostAccountID)
		if err != nil || got.SocialAccount != acct || got.PublishTo != "dir" {
			t.Errorf("own account %+v, %v; want %+v", got, err, acct)
		}
		if _, err := s.GetSocialAccount(t.Context(), "org-2", acct.PostAccountID); !errors.Is(err, ErrNotFound) {
			t.Errorf("another org's account: %v, want ErrNotFound", err)
		}
	})
}
