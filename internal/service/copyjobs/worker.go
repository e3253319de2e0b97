// Package copyjobs runs social copy jobs: the Worker generates each RUNNING
// job's copy from its clip (package socialcopy) and finishes it COMPLETED,
// or FAILED with the reason. Each RUNNING job has a job in the job system
// (package jobs), inserted in the transaction that stores the row and
// completed in the one that finishes it, so a job cut short by a stop or a
// crash runs again, on this process or another.
package copyjobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/socialcopy"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// timeout bounds one attempt and is its lease: a copy takes milliseconds,
// so a job claimed this long ago by a process that died is run again.
const timeout = 30 * time.Second

// args is the job of one copy job row, named by its id.
type args struct {
	CopyJobID string `json:"copy_job_id"`
}

func (args) Kind() string { return "social_copy" }

// Store is what the worker needs of the store: the running jobs, the
// clips they are about, and finishing a job with its copy.
type Store interface {
	RunningCopyJobs(ctx context.Context) ([]string, error)
	CopyJob(ctx context.Context, id string) (*store.CopyJob, error)
	GetClip(ctx context.Context, id string) (*store.Clip, error)
	FinishCopyJob(ctx context.Context, j *store.CopyJob, then store.TxHook) error
}

// Config configures a Worker.
type Config struct {
	Store  Store
	Jobs   *jobs.Jobs
	Logger *slog.Logger // nil = discard
}

// Worker makes the copy of the jobs the job system hands it.
type Worker struct {
	store Store
	jobs  *jobs.Jobs
	rows  *jobs.Rows[args]
	log   *slog.Logger

	// beforeRun, when a test sets it, is called with each RUNNING job
	// before its copy is made, so the test can look at it RUNNING.
	beforeRun func(ctx context.Context, jobID string)
}

// New checks cfg and registers the worker's kind with cfg.Jobs, which runs
// it from its Start.
func New(cfg Config) (*Worker, error) {
	if cfg.Store == nil {
		return nil, errors.New("copyjobs: Store is required")
	}
	if cfg.Jobs == nil {
		return nil, errors.New("copyjobs: Jobs is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	w := &Worker{store: cfg.Store, jobs: cfg.Jobs, log: cfg.Logger}
	var err error
	w.rows, err = jobs.RegisterRows(cfg.Jobs, jobs.RowKind[args, string, *store.CopyJob]{
		Kind: jobs.Kind{Queue: jobs.QueueCopy, Timeout: timeout}, Row: "copy job", Logger: cfg.Logger,
		Pending: w.store.RunningCopyJobs, Args: func(id string) args { return args{CopyJobID: id} },
		ID: func(a args) string { return a.CopyJobID }, Get: w.store.CopyJob, Gone: store.ErrNotFound,
		Needs: func(j *store.CopyJob) bool { return j.Status == apitypes.CopyRunning }, Work: w.run,
	})
	if err != nil {
		return nil, fmt.Errorf("copyjobs: %w", err)
	}
	return w, nil
}

// Enqueue is store.CreateCopyJob's enqueue for j: it adds j's job in the
// transaction that stores j RUNNING.
func (w *Worker) Enqueue(j *store.CopyJob) store.TxHook {
	return w.rows.Enqueue(func() args { return args{CopyJobID: j.ID} })
}

// Adopt gives every RUNNING copy job without a job one: those stored before
// copy jobs ran on the job system, and any whose job gave up.
func (w *Worker) Adopt(ctx context.Context) error { return w.rows.Adopt(ctx) }

// run makes the copy of the job's RUNNING row and records the outcome with
// the job's completion. An error retries the job; on its last attempt the
// row is finished FAILED instead.
func (w *Worker) run(ctx context.Context, job *jobs.Job[args], j *store.CopyJob) error {
	id := j.ID
	if w.beforeRun != nil {
		w.beforeRun(ctx, id)
	}
	if err := w.makeCopy(ctx, j); err != nil {
		if ctx.Err() != nil || !job.LastAttempt() {
			return err
		}
		w.log.Error("copy job failed on its last attempt", "job", id, "attempt", job.Attempt, "err", err)
		j.Status, j.Error = apitypes.CopyFailed, "the clip could not be read; create the job again"
	}
	// The outcome is recorded even when a stop comes now: it is made.
	err := w.store.FinishCopyJob(context.WithoutCancel(ctx), j, func(ctx context.Context, tx *sql.Tx) error {
		return jobs.CompleteTx(ctx, tx, job)
	})
	if err != nil {
		return err
	}
	w.log.Info("copy job finished", "job", id, "status", j.Status, "error", j.Error)
	return nil
}

// makeCopy sets j's outcome: COMPLETED with the copy of its clip, or FAILED
// with why. An error (the worker is stopping, or the clip could not be
// read) leaves j without an outcome.
func (w *Worker) makeCopy(ctx context.Context, j *store.CopyJob) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	clip, err := w.store.GetClip(ctx, j.ProjectID+"."+j.ClipID)
	if err == nil && clip.OrgID != j.OrgID {
		err = store.ErrNotFound
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		j.Status, j.Error = apitypes.CopyFailed, fmt.Sprintf("clip %q of project %q no longer exists", j.ClipID, j.ProjectID)
		return nil
	case err != nil:
		return fmt.Errorf("read the clip of copy job %s: %w", j.ID, err)
	}
	out, err := socialcopy.Generate(socialcopy.Clip{
		Title: clip.Title, Description: clip.Description, Text: clip.Text, Hashtags: clip.Hashtags, Keywords: clip.Keywords,
	}, j.Platform, j.Prompt)
	if err != nil {
		j.Status, j.Error = apitypes.CopyFailed, err.Error()
		return nil //nolint:nilerr // the generator's refusal is the job's outcome, not a reason to retry
	}
	j.Status, j.ClipVersion = apitypes.CopyCompleted, clip.Version()
	j.Title, j.Description, j.Hashtags = out.Title, out.Description, out.Hashtags
	return nil
}
