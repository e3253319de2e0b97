package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/backoff"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

// A project's life, in one place:
//
//	QUEUED → IMPORT → CURATE → REFINE → RENDER → UPLOAD → COMPLETE
//	any active stage → STALLED (error set, stallCount+1, failureStalls+1)
//	STALLED with retryAt → QUEUED when retryAt passes (scan loop), error cleared
//	active stage found at Start → STALLED "interrupted…" (stallCount+1 only) → QUEUED at once
//	a tool not on PATH (ffmpeg, ffprobe) → STALLED with retryAt (stallCount+1 only)
//	failureStalls > MaxRetries, or a permanent failure → STALLED for good;
//	  at IMPORT (nothing processed yet) its credits are refunded
//
// Each stage is persisted before its work starts, so the API reports
// progress. A run keeps its intermediate results (probe, highlights, plans)
// in a job; every stage is idempotent, so a retry starts again at IMPORT.

// stage is one step of the machine.
type stage struct {
	name apitypes.Stage
	run  func(r *Runner, ctx context.Context, j *job) error
}

var stages = []stage{
	{apitypes.StageImport, (*Runner).importStage},
	{apitypes.StageCurate, (*Runner).curateStage},
	{apitypes.StageRefine, (*Runner).refineStage},
	{apitypes.StageRender, (*Runner).renderStage},
	{apitypes.StageUpload, (*Runner).uploadStage},
}

// job is one run of the machine over a project.
type job struct {
	p      *store.Project // as last persisted
	runID  string
	tmp    string // the run's temporary directory (Config.Scratch)
	source string // a local file of the imported source (blob.LocalFile)

	probe  *media.ProbeResult
	span   media.Interval // the part of the source processed (range or whole)
	ranged bool           // curationPref.range was given

	highlights []media.Highlight
	words      []transcribe.Word // the transcript of span, in source seconds
	plans      []*clipPlan
	renderUsed apitypes.RenderPref // the render preferences applied, reported on clips
	clips      []apitypes.ExportableClip
}

var errNotQueued = errors.New("project is not queued")

// process runs one project from QUEUED to COMPLETE or STALLED. When ctx is
// cancelled (Stop) the project is left in its stage, as after a crash.
func (r *Runner) process(ctx context.Context, id string) {
	j := &job{runID: store.NewID("run_")}
	defer func() {
		if j.tmp != "" {
			if err := r.cfg.Scratch.Remove(id); err != nil {
				r.log.Warn("remove the run's temporary files", "project", id, "err", err)
			}
		}
	}()
	started := time.Now()
	from := apitypes.StageQueued
	for i, st := range stages {
		var p *store.Project
		err := r.persist(ctx, "stage "+string(st.name), id, func() (err error) {
			p, err = r.cfg.Store.MutateProject(ctx, id, func(p *store.Project) error {
				return r.enter(p, i == 0, st.name, &started)
			})
			return err
		})
		if errors.Is(err, errNotQueued) || errors.Is(err, store.ErrNotFound) {
			return
		}
		if err != nil {
			if ctx.Err() == nil {
				r.log.Error("persist stage", "project", id, "stage", st.name, "err", err)
			}
			return
		}
		r.log.Info("project stage", "project", id, "from", from, "to", st.name, "took", r.left(from, started).Round(time.Millisecond))
		from, started, j.p = st.name, time.Now(), p
		r.at(ctx, string(st.name))
		if err := st.run(r, ctx, j); err != nil {
			if ctx.Err() != nil {
				r.log.Warn("project interrupted by shutdown", "project", id, "stage", st.name, "took", time.Since(started).Round(time.Millisecond))
				return
			}
			r.stall(ctx, id, st.name, err, r.left(st.name, started))
			return
		}
	}
	if err := r.complete(ctx, j); err != nil {
		if ctx.Err() != nil {
			return
		}
		r.stall(ctx, id, apitypes.StageUpload, err, r.left(apitypes.StageUpload, started))
		return
	}
	r.log.Info("project stage", "project", id, "from", from, "to", apitypes.StageComplete, "took", r.left(from, started).Round(time.Millisecond), "clips", len(j.clips))
}

// left reports that a run moved a project out of stage, which it entered
// at started, and returns the time it spent there. QUEUED's start is the
// store's clock, which a test may have moved ahead: never below zero.
func (r *Runner) left(stage apitypes.Stage, started time.Time) time.Duration {
	took := max(time.Since(started), 0)
	r.cfg.OnStageLeft(stage, took)
	return took
}

// enter moves p into stage; the first stage is the claim, which only a
// queued project passes, and started becomes the time it waited since.
func (r *Runner) enter(p *store.Project, claim bool, stage apitypes.Stage, started *time.Time) error {
	if claim {
		// The claim: only a queued project starts a run.
		if !p.Stage.Waiting() {
			return errNotQueued
		}
		p.RetryAt, p.Error = time.Time{}, nil // a new run; stallCount keeps the history
		if !p.UpdatedAt.IsZero() {
			*started = p.UpdatedAt // the time spent waiting in QUEUED
		}
	}
	p.Stage = stage
	return nil
}

// at calls the test hook, if any.
func (r *Runner) at(ctx context.Context, point string) {
	if r.hook != nil {
		r.hook(ctx, point)
	}
}

// complete moves the project to COMPLETE and queues its conclusion actions
// in the same transaction.
func (r *Runner) complete(ctx context.Context, j *job) error {
	var size int64
	for _, pl := range j.plans {
		size += pl.exportBytes + pl.previewBytes
	}
	// Signed and measured before the transaction, which holds the store's one connection.
	size += r.objectSize(ctx, j.p.SourceKey)
	mailed, err := r.signedClips(ctx, j.p, j.clips)
	if err != nil {
		return err
	}
	err = r.persist(ctx, "completion", j.p.ID, func() (err error) {
		_, _, err = r.cfg.Store.MutateProjectWithEffects(ctx, j.p.ID, func(p *store.Project) (store.Effects, error) {
			p.Stage = apitypes.StageComplete
			p.Error, p.RetryAt = nil, time.Time{}
			p.StorageSize = size
			return store.Effects{Deliveries: r.conclusionDeliveries(p, mailed), Enqueue: r.enqueueDelivery()}, nil
		})
		return err
	})
	if err != nil {
		return fmt.Errorf("mark complete: %w", err)
	}
	return nil
}

// stall records a failed stage: STALLED, the error, one more stall, and a
// retry time unless the failure is permanent or the project's own failures
// used up its retries. An interruption by a restart is retried at once and
// does not count as a failure: restarts never give up a project; nor does a
// tool missing from the server, retried with backoff until it is there. A final
// stall runs the conclusion actions that asked for failures, and refunds the
// credits of a project that failed at IMPORT, before anything was processed.
func (r *Runner) stall(ctx context.Context, id string, stageName apitypes.Stage, cause error, took time.Duration) {
	r.stallWhen(ctx, id, stageName, cause, took, nil)
}

// stallWhen is stall of a project that still passes guard when it is
// written (nil: any); the watchdog guards against a project that moved on.
func (r *Runner) stallWhen(ctx context.Context, id string, stageName apitypes.Stage, cause error, took time.Duration, guard func(*store.Project) bool) {
	var msg string
	restart := isImmediate(cause)
	if restart {
		msg = cause.Error()
	} else {
		msg = fmt.Sprintf("%s failed: %v", stageName, cause)
	}
	permanent := isPermanent(cause)
	noTool := !permanent && missingTool(cause)
	var retryAt time.Time
	var refunded bool
	mutate := func(p *store.Project) (store.Effects, error) {
		if guard != nil && !guard(p) {
			return store.Effects{}, errStale
		}
		count := int64(1)
		if p.StallCount != nil {
			count = *p.StallCount + 1
		}
		if !restart && !noTool {
			p.FailureStalls++
		}
		retryAt = time.Time{}
		text := msg
		switch {
		case permanent:
		case restart:
			retryAt = r.cfg.Store.Now()
		case noTool:
			retryAt = r.cfg.Store.Now().Add(r.retryDelay(max(1, p.FailureStalls)))
		case p.FailureStalls > int64(r.cfg.MaxRetries):
			text = fmt.Sprintf("%s (not retried: the project failed %d times)", msg, p.FailureStalls)
		default:
			retryAt = r.cfg.Store.Now().Add(r.retryDelay(p.FailureStalls))
		}
		p.Stage, p.Error, p.StallCount, p.RetryAt = apitypes.StageStalled, &text, &count, retryAt
		if !retryAt.IsZero() {
			return store.Effects{}, nil // not a conclusion yet: the service tries again
		}
		refunded = quota.RefundsOnStall(stageName)
		return store.Effects{Deliveries: r.conclusionDeliveries(p, nil), Enqueue: r.enqueueDelivery(), Refund: refunded}, nil
	}
	var p *store.Project
	err := r.persist(ctx, "stall", id, func() (err error) {
		p, _, err = r.cfg.Store.MutateProjectWithEffects(context.WithoutCancel(ctx), id, mutate)
		return err
	})
	if errors.Is(err, errStale) {
		return
	}
	if err != nil {
		r.log.Error("persist stall", "project", id, "stage", stageName, "cause", cause, "err", err)
		return
	}
	r.log.Warn("project stage", "project", id, "from", stageName, "to", apitypes.StageStalled, "took", took.Round(time.Millisecond),
		"error", *p.Error, "stallCount", *p.StallCount, "failureStalls", p.FailureStalls, "permanent", permanent,
		"retryAt", retryAt, "refunded", refunded)
}

// retryDelay is the backoff before retrying after the n-th stall: RetryBase
// doubling per stall, at most an hour.
func (r *Runner) retryDelay(n int64) time.Duration {
	return backoff.Exponential(int(n), r.cfg.RetryBase, time.Hour)
}

// requeue moves a STALLED project whose retry is due back to QUEUED.
func (r *Runner) requeue(ctx context.Context, id string) error {
	_, err := r.cfg.Store.MutateProject(ctx, id, func(p *store.Project) error {
		if p.Stage != apitypes.StageStalled || p.RetryAt.IsZero() {
			return errNotQueued
		}
		// The error described the last run; the next one starts clean.
		p.Stage, p.RetryAt, p.Error = apitypes.StageQueued, time.Time{}, nil
		return nil
	})
	if errors.Is(err, errNotQueued) {
		return nil
	}
	if err != nil {
		return err
	}
	r.log.Info("project stage", "project", id, "from", apitypes.StageStalled, "to", apitypes.StageQueued, "reason", "retry")
	r.Submit(id)
	return nil
}

// recoverInterrupted stalls every project an earlier process left in an
// active stage (the stall is counted and logged) and queues it again at once,
// before Start returns and so before the server answers anyone: a client that
// waited through the restart reads QUEUED, never a STALLED that would end its
// wait for a project the service is about to resume.
func (r *Runner) recoverInterrupted(ctx context.Context) error {
	// A worker holds a project in these stages; finding one there at
	// Start means the process died mid-run.
	ps, err := r.cfg.Store.ProjectsInStages(ctx, apitypes.StagesWhere(apitypes.Stage.Processing)...)
	if err != nil {
		return err
	}
	for _, p := range ps {
		r.stall(ctx, p.ID, p.Stage, interruptedError(p.Stage), 0)
		if err := r.requeue(ctx, p.ID); err != nil {
			return err
		}
	}
	return nil
}
