package pipeline

import (
	"context"
	"errors"
	"fmt"
	"sync"
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
//	active stage whose run's lease ended (its process died, its writes kept
//	  failing) → QUEUED by the watchdog, as interrupted (stallCount+1 and
//	  interruptions+1 only), in one transaction; the 2nd to 4th such in a
//	  row → STALLED with retryAt (backoff), the 5th (MaxInterruptions) →
//	  STALLED for good; an outcome (COMPLETE, a stall, a hand-off) resets it
//	active stage whose run is cut short by a stop → QUEUED at once, the same way
//	a tool not on PATH (ffmpeg, ffprobe) → STALLED with retryAt (stallCount+1 only)
//	failureStalls > MaxRetries, or a permanent failure → STALLED for good;
//	  at IMPORT (nothing processed yet) its credits are refunded
//	a source from the network: QUEUED → IMPORT (the import leg, queue
//	  import, fetches it) → QUEUED (handOff) → IMPORT (the run) → ...
//
// Every move to QUEUED raises the project's run token and inserts the job
// of the new token in the same transaction; a run writes only while the
// project carries its token, so a run taken over writes nothing more.
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

// leg is the part of the machine one job runs: its stages, from the claim
// of a QUEUED project, and finish, which moves the project on after the
// last of them (to COMPLETE, or back to QUEUED for the next leg).
type leg struct {
	stages []stage
	finish func(r *Runner, ctx context.Context, j *job) (apitypes.Stage, error)
}

var (
	// wholeRun is a project run (queue pipeline): IMPORT to COMPLETE. Its
	// IMPORT finds the source already there when the import leg fetched it.
	wholeRun = leg{stages, (*Runner).complete}
	// importLeg fetches a source from the network (queue import) and hands
	// the project to a run (handOff), so a slow source holds an import
	// worker, not a render slot.
	importLeg = leg{[]stage{{apitypes.StageImport, (*Runner).fetchStage}}, (*Runner).handOff}
)

// job is one run of the machine over a project.
type job struct {
	p       *store.Project // as last persisted
	run     int64          // the project's run token this run holds
	runID   string
	tmp     string // the run's temporary directory (Config.Scratch), once made
	tmpName string // its name
	source  string // a local file of the imported source (blob.LocalFile)

	probe  *media.ProbeResult
	span   media.Interval // the part of the source processed (range or whole)
	ranged bool           // curationPref.range was given

	chunks     int // the transcription's pieces, when it was cut (transcript.go)
	highlights []media.Highlight
	analysis   *media.Analysis   // of the source, from CURATE: the shots and follow path RENDER lays out
	words      []transcribe.Word // the transcript of span, in source seconds
	plans      []*clipPlan
	renderUsed apitypes.RenderPref // the render preferences applied, reported on clips
	broll      *brollLibrary       // the org's b-roll library, with enableBroll (broll.go)
	clips      []store.Clip
}

var (
	errNotQueued = errors.New("project is not queued")
	// errLostRun is a write of a run whose project carries another token
	// now: the run was taken over and stops.
	errLostRun = fmt.Errorf("pipeline: %w", store.ErrStaleRun)
	// errLeaseLost ends a run whose heartbeat found the project taken over.
	errLeaseLost = errors.New("the run's lease was taken over")
)

// process runs leg l of project id, from QUEUED to the leg's end (COMPLETE,
// or QUEUED for the run after an import) or STALLED, as run (a token): a
// project that is not QUEUED with that token is left alone. A run
// cut short (a stop) is handed back, QUEUED again at once; a run taken over
// (its lease ended) stops without writing. It returns an error only when
// the claim could not be written, so the job is tried again (or, cut short
// by a stop, handed back).
func (r *Runner) process(ctx context.Context, id string, run int64, l leg) error {
	// The temporary directory is the run's, so a stale and a current run
	// on one box keep apart.
	j := &job{run: run, runID: store.NewID("run_"), tmpName: fmt.Sprintf("%s.run%d", id, run)}
	defer func() {
		if j.tmp != "" {
			if err := r.cfg.Scratch.Remove(j.tmpName); err != nil {
				r.log.Warn("remove the run's temporary files", "project", id, "err", err)
			}
		}
	}()
	ctx, cut := context.WithCancelCause(ctx)
	var beat sync.WaitGroup
	defer beat.Wait()
	defer cut(nil) // the heartbeat ends before the run returns

	started := time.Now()
	from := apitypes.StageQueued
	for i, st := range l.stages {
		var lease time.Time // the claim's: the first stage's write takes the lease
		if i == 0 {
			now, err := r.leases.now(ctx)
			if err != nil {
				return fmt.Errorf("pipeline: claim project %s: %w", id, err)
			}
			lease = now.Add(r.cfg.Lease)
		}
		var p *store.Project
		err := r.persist(ctx, "stage "+string(st.name), id, func() (err error) {
			p, err = r.cfg.Store.MutateProject(ctx, id, func(p *store.Project) error {
				return r.enter(p, run, lease, st.name, &started)
			})
			return err
		})
		if i == 0 && err != nil {
			if errors.Is(err, errNotQueued) || errors.Is(err, errLostRun) || errors.Is(err, store.ErrNotFound) {
				r.log.Debug("run not started: the project moved on", "project", id, "run", run, "err", err)
				return nil
			}
			// Failed, or cut short by a stop: the project is still QUEUED,
			// so the job must stay too (a stop hands it back, a failure
			// retries it).
			return fmt.Errorf("pipeline: claim project %s: %w", id, err)
		}
		if i == 0 {
			beat.Add(1)
			go func() { defer beat.Done(); r.heartbeat(ctx, cut, id, run) }()
		}
		if err != nil {
			r.ended(ctx, id, run, st.name, "stage", err)
			return nil
		}
		r.log.Info("project stage", "project", id, "from", from, "to", st.name, "took", r.left(from, started).Round(time.Millisecond))
		from, started, j.p = st.name, time.Now(), p
		r.at(ctx, string(st.name))
		if err := st.run(r, ctx, j); err != nil {
			r.failed(ctx, id, run, st.name, "stage", err, started)
			return nil
		}
	}
	to, err := l.finish(r, ctx, j)
	if err != nil {
		r.failed(ctx, id, run, from, "the end of "+string(from), err, started)
		return nil
	}
	r.log.Info("project stage", "project", id, "from", from, "to", to, "took", r.left(from, started).Round(time.Millisecond), "clips", len(j.clips))
	return nil
}

// failed handles the error of a run in stage, which it entered at
// started: a run cut short (a stop, a takeover) ends without an outcome;
// a failure stalls the project, unless the process is stopping (Stop) and
// the failure is not the project's for sure (not permanent, no tool
// missing): a tool killed by the signal that stops the whole service
// (systemd's KillMode=control-group signals every process of the unit, a
// tool's own process group included) dies before clipperd cancels the
// run, and must not count as a failure of the project. It is handed back,
// and fails again on the next run if it was a real failure.
func (r *Runner) failed(ctx context.Context, id string, run int64, stage apitypes.Stage, what string, err error, started time.Time) {
	switch {
	case ctx.Err() != nil || errors.Is(err, store.ErrStaleRun):
		r.ended(ctx, id, run, stage, what, err)
	case r.stopping.Load() && !isPermanent(err) && !missingTool(err):
		r.log.Warn("project stage failed while clipperd stops; handed back, not counted as a failure", "project", id, "stage", stage, "err", err)
		r.handBack(ctx, id, run, stage)
	default:
		r.stall(ctx, id, run, stage, err, r.left(stage, started))
	}
}

// ended handles a run that stops in stage without an outcome: taken over
// (its writes are refused, its lease is another's), it just stops; cut
// short by a stop (or its write failed), it hands the project back.
func (r *Runner) ended(ctx context.Context, id string, run int64, stage apitypes.Stage, what string, err error) {
	if errors.Is(err, store.ErrStaleRun) || errors.Is(context.Cause(ctx), errLeaseLost) {
		r.log.Warn("project run taken over; it stops without writing", "project", id, "run", run, "stage", stage)
		return
	}
	if ctx.Err() == nil {
		// A write that kept failing (a full disk): the lease ends with the
		// heartbeat, and the watchdog of some process queues it again.
		r.log.Error("persist "+what, "project", id, "stage", stage, "err", err)
		return
	}
	r.handBack(ctx, id, run, stage)
}

// heartbeat renews the run's lease every Lease/3 until ctx ends, and cuts
// the run with errLeaseLost once the project is no longer its own.
func (r *Runner) heartbeat(ctx context.Context, cut context.CancelCauseFunc, id string, run int64) {
	r.keepLease(ctx, cut, func(until time.Time) (bool, error) { return r.cfg.Store.RenewLease(ctx, id, run, until) },
		"renew the run's lease", "project", id, "run", run)
}

// keepLease renews a lease (renew's, to the time it is given) every
// Lease/3 until ctx ends, and cuts ctx with errLeaseLost once renew says
// it is held no more. A renewal that fails is logged as what, with attrs,
// and tried again at the next tick.
func (r *Runner) keepLease(ctx context.Context, cut context.CancelCauseFunc, renew func(until time.Time) (bool, error), what string, attrs ...any) {
	t := time.NewTicker(r.cfg.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now, err := r.leases.now(ctx)
		held := true
		if err == nil {
			held, err = renew(now.Add(r.cfg.Lease))
		}
		switch {
		case err != nil:
			if ctx.Err() == nil {
				r.log.Warn(what, append(attrs, "err", err)...)
			}
		case !held:
			cut(errLeaseLost)
			return
		}
	}
}

// left reports that a run moved a project out of stage, which it entered
// at started, and returns the time it spent there. QUEUED's start is the
// store's clock, which a test may have moved ahead: never below zero.
func (r *Runner) left(stage apitypes.Stage, started time.Time) time.Duration {
	took := max(time.Since(started), 0)
	r.cfg.OnStageLeft(stage, took)
	return took
}

// enter moves p into stage for run; the first stage is the claim (lease
// set: when the lease ends, in leaseClock's time), which only a project
// queued with run's token passes, takes the lease, and makes started the
// time it waited since.
func (r *Runner) enter(p *store.Project, run int64, lease time.Time, stage apitypes.Stage, started *time.Time) error {
	if p.RunToken != run {
		return errLostRun
	}
	if !lease.IsZero() {
		if !p.Stage.Waiting() {
			return errNotQueued
		}
		p.RetryAt, p.Error = time.Time{}, nil // a new run; stallCount keeps the history
		p.LeaseUntil = lease
		if !p.UpdatedAt.IsZero() {
			*started = p.UpdatedAt // the time spent waiting in QUEUED
		}
	} else if !p.Stage.Processing() {
		return errLostRun
	}
	p.Stage = stage
	return nil
}

// fence is the check of a run's write to p: p must carry the run's token and
// be in a processing stage.
func fence(p *store.Project, run int64) error {
	if p.RunToken != run || !p.Stage.Processing() {
		return errLostRun
	}
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
func (r *Runner) complete(ctx context.Context, j *job) (apitypes.Stage, error) {
	var size int64
	for _, pl := range j.plans {
		size += pl.exportBytes + pl.previewBytes
	}
	// Signed and measured before the transaction, which holds the store's one connection.
	size += r.objectSize(ctx, j.p.SourceKey)
	mailed, err := r.signedClips(ctx, j.p, j.clips)
	if err != nil {
		return "", err
	}
	err = r.persist(ctx, "completion", j.p.ID, func() (err error) {
		_, _, err = r.cfg.Store.MutateProjectWithEffects(ctx, j.p.ID, func(p *store.Project) (store.Effects, error) {
			if err := fence(p, j.run); err != nil {
				return store.Effects{}, err
			}
			p.Stage, p.LeaseUntil, p.Interruptions = apitypes.StageComplete, time.Time{}, 0
			p.Error, p.RetryAt = nil, time.Time{}
			p.StorageSize = size
			return store.Effects{Deliveries: r.conclusionDeliveries(p, mailed), Enqueue: r.enqueueDelivery()}, nil
		})
		return err
	})
	if err != nil {
		return "", fmt.Errorf("mark complete: %w", err)
	}
	r.dropPieces(ctx, j.p.ID)
	return apitypes.StageComplete, nil
}

// dropPieces deletes the pieces of a project whose runs are over (COMPLETE,
// or STALLED for good): their results are in the project now, or no run
// will read them. One left behind by a failed delete is harmless: a later
// run's plan replaces it.
func (r *Runner) dropPieces(ctx context.Context, id string) {
	if err := r.cfg.Store.DeletePieces(context.WithoutCancel(ctx), id); err != nil {
		r.log.Warn("delete the pieces of a finished project", "project", id, "err", err)
	}
}

// stall records a failed stage: STALLED, the error, one more stall, and a
// retry time unless the failure is permanent or the project's own failures
// used up its retries. A tool missing from the server does not count as a
// failure of the project: it is retried with backoff until it is there
// (an interrupted run is not stalled but queued again, see interrupt). A final
// stall runs the conclusion actions that asked for failures, and refunds the
// credits of a project that failed at IMPORT, before anything was processed.
// The stall is run's (a token): a project taken over is left alone.
func (r *Runner) stall(ctx context.Context, id string, run int64, stageName apitypes.Stage, cause error, took time.Duration) {
	msg := fmt.Sprintf("%s failed: %v", stageName, cause)
	permanent := isPermanent(cause)
	noTool := !permanent && missingTool(cause)
	var retryAt time.Time
	var refunded bool
	mutate := func(p *store.Project) (store.Effects, error) {
		if err := fence(p, run); err != nil {
			return store.Effects{}, err
		}
		count := int64(1)
		if p.StallCount != nil {
			count = *p.StallCount + 1
		}
		if !noTool {
			p.FailureStalls++
		}
		retryAt = time.Time{}
		text := msg
		switch {
		case permanent:
		case noTool:
			retryAt = r.cfg.Store.Now().Add(r.retryDelay(max(1, p.FailureStalls)))
		case p.FailureStalls > int64(r.cfg.MaxRetries):
			text = fmt.Sprintf("%s (not retried: the project failed %d times)", msg, p.FailureStalls)
		default:
			retryAt = r.cfg.Store.Now().Add(r.retryDelay(p.FailureStalls))
		}
		p.Stage, p.Error, p.StallCount, p.RetryAt = apitypes.StageStalled, &text, &count, retryAt
		p.LeaseUntil, p.Interruptions = time.Time{}, 0 // an outcome: the interruptions in a row end
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
	if errors.Is(err, errLostRun) {
		r.log.Warn("project run taken over; its stall is not written", "project", id, "run", run, "stage", stageName, "cause", cause)
		return
	}
	if err != nil {
		r.log.Error("persist stall", "project", id, "stage", stageName, "cause", cause, "err", err)
		return
	}
	if retryAt.IsZero() {
		r.dropPieces(ctx, id)
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

// requeue moves a STALLED project whose retry is due back to QUEUED, with
// a new run token and its job.
func (r *Runner) requeue(ctx context.Context, id string) error {
	_, _, err := r.cfg.Store.MutateProjectWithEffects(ctx, id, func(p *store.Project) (store.Effects, error) {
		if p.Stage != apitypes.StageStalled || p.RetryAt.IsZero() {
			return store.Effects{}, errNotQueued
		}
		return r.queueAgain(p), nil
	})
	if errors.Is(err, errNotQueued) {
		return nil
	}
	if err != nil {
		return err
	}
	r.log.Info("project stage", "project", id, "from", apitypes.StageStalled, "to", apitypes.StageQueued, "reason", "retry")
	return nil
}

// queueAgain makes p QUEUED for a new run: the error of the last run
// cleared, its token raised (the last run's writes are refused from now
// on), and the new run's job inserted in the same transaction.
func (r *Runner) queueAgain(p *store.Project) store.Effects {
	return r.requeueAs(p, false)
}

// resumeAgain is queueAgain for a project whose last run was cut short
// without an outcome: its job is resumed (runArgs.Resumed), so the first
// free worker of any process takes it.
func (r *Runner) resumeAgain(p *store.Project) store.Effects {
	return r.requeueAs(p, true)
}

func (r *Runner) requeueAs(p *store.Project, resumed bool) store.Effects {
	p.Stage, p.RetryAt, p.Error, p.LeaseUntil = apitypes.StageQueued, time.Time{}, nil, time.Time{}
	p.RunToken++
	return store.Effects{Then: r.enqueue(p, resumed)}
}

// interrupt queues again, at once, a project whose run stopped in its stage
// without an outcome, when ok(p) says the run is still the one that should
// be interrupted; why(stage) says what interrupted it. It counts as a stall
// (stallCount+1), not as a failure of the project, and is logged as one.
func (r *Runner) interrupt(ctx context.Context, id string, why func(apitypes.Stage) error, ok func(*store.Project) bool) error {
	var from apitypes.Stage
	_, _, err := r.cfg.Store.MutateProjectWithEffects(ctx, id, func(p *store.Project) (store.Effects, error) {
		if !ok(p) {
			return store.Effects{}, errStale
		}
		from = p.Stage
		count := int64(1)
		if p.StallCount != nil {
			count = *p.StallCount + 1
		}
		p.StallCount = &count
		return r.resumeAgain(p), nil
	})
	if errors.Is(err, errStale) {
		return nil
	}
	if err != nil {
		return err
	}
	r.log.Warn("project stage", "project", id, "from", from, "to", apitypes.StageStalled, "error", why(from).Error())
	r.log.Info("project stage", "project", id, "from", apitypes.StageStalled, "to", apitypes.StageQueued, "reason", "interrupted")
	return nil
}

// handBack queues again at once the project of a run a stop cut short in
// stage, so another process, or the next start, takes it without waiting
// for the lease to end.
func (r *Runner) handBack(ctx context.Context, id string, run int64, stage apitypes.Stage) {
	err := r.interrupt(context.WithoutCancel(ctx), id, interruptedError, func(p *store.Project) bool { return fence(p, run) == nil })
	if err != nil {
		r.log.Error("hand back an interrupted run", "project", id, "stage", stage, "err", err)
	}
}
