// Package copyjobs runs social copy jobs: the Worker generates each RUNNING
// job's copy from its clip (package socialcopy) and finishes it COMPLETED,
// or FAILED with the reason. Jobs live in the store, so a job that a stopped
// process left RUNNING is run by the next Start.
package copyjobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/repeat"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/socialcopy"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// Config configures a Worker.
type Config struct {
	Store  *store.Store
	Logger *slog.Logger // nil = discard
}

// Worker runs copy jobs one after another; each takes milliseconds, so one
// goroutine keeps up.
type Worker struct {
	store *store.Store
	log   *slog.Logger
	jobs  repeat.Queue

	// beforeRun, when a test sets it, is called with each RUNNING job
	// before its copy is made, so the test can look at it RUNNING.
	beforeRun func(ctx context.Context, jobID string)
}

// New checks cfg.
func New(cfg Config) (*Worker, error) {
	if cfg.Store == nil {
		return nil, errors.New("copyjobs: Store is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Worker{store: cfg.Store, log: cfg.Logger}, nil
}

// Start queues the jobs an earlier process left RUNNING, then runs jobs
// until Stop. ctx bounds the lookup only.
func (w *Worker) Start(ctx context.Context) error {
	left, err := w.store.RunningCopyJobs(ctx)
	if err != nil {
		return fmt.Errorf("copyjobs: %w", err)
	}
	if len(left) > 0 {
		w.log.Info("resuming copy jobs left running", "count", len(left))
	}
	if err := w.jobs.Start(ctx, left, w.run); err != nil {
		return fmt.Errorf("copyjobs: %w", err)
	}
	return nil
}

// Submit queues a job without blocking.
func (w *Worker) Submit(jobID string) { w.jobs.Submit(jobID) }

// Stop cancels the job in progress, then always waits, so nothing uses the
// store after Stop. A job cut short runs again after the next Start.
func (w *Worker) Stop() { w.jobs.Stop() }

// run makes the copy of job id, if it is still RUNNING, and records the
// outcome.
func (w *Worker) run(ctx context.Context, id string) {
	j, err := w.store.CopyJob(ctx, id)
	if err != nil {
		if ctx.Err() == nil {
			w.log.Error("read copy job", "job", id, "err", err)
		}
		return
	}
	if j.Status != apitypes.CopyRunning {
		return // run already, by a submit and a restart's recovery both
	}
	if w.beforeRun != nil {
		w.beforeRun(ctx, id)
	}
	if !w.makeCopy(ctx, j) {
		return // stopped: the job stays RUNNING
	}
	if err := w.store.FinishCopyJob(context.WithoutCancel(ctx), j); err != nil {
		w.log.Error("finish copy job", "job", id, "err", err)
		return
	}
	w.log.Info("copy job finished", "job", id, "status", j.Status, "error", j.Error)
}

// makeCopy sets j's outcome: COMPLETED with the copy of its clip, or FAILED
// with why. It is false, leaving j without an outcome, when the worker is
// stopping.
func (w *Worker) makeCopy(ctx context.Context, j *store.CopyJob) bool {
	if ctx.Err() != nil {
		return false
	}
	clip, err := w.store.GetClip(ctx, j.ProjectID+"."+j.ClipID)
	if err == nil && clip.OrgID != j.OrgID {
		err = store.ErrNotFound
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		j.Status, j.Error = apitypes.CopyFailed, fmt.Sprintf("clip %q of project %q no longer exists", j.ClipID, j.ProjectID)
		return true
	case err != nil && ctx.Err() != nil:
		return false
	case err != nil:
		w.log.Error("read the clip of a copy job", "job", j.ID, "err", err)
		j.Status, j.Error = apitypes.CopyFailed, "the clip could not be read; create the job again"
		return true
	}
	out, err := socialcopy.Generate(socialcopy.Clip{
		Title: clip.Title, Description: clip.Description, Text: clip.Text, Hashtags: clip.Hashtags, Keywords: clip.Keywords,
	}, j.Platform, j.Prompt)
	if err != nil {
		j.Status, j.Error = apitypes.CopyFailed, err.Error()
		return true
	}
	j.Status, j.ClipVersion = apitypes.CopyCompleted, clip.UpdatedAt
	j.Title, j.Description, j.Hashtags = out.Title, out.Description, out.Hashtags
	return true
}
