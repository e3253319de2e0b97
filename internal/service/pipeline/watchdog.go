package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// watch is the watchdog, run on every scan of every process that works the
// pipeline: a project in a processing stage whose run's lease ended has no
// live run. Its process died (kill -9, a lost machine), lost the database,
// or gave up because its writes kept failing (a full disk, a database that
// refuses them). Leases are read by the lease clock (the database's on
// PostgreSQL), so a process whose own clock is off neither ends live leases
// early nor keeps dead ones. The write checks the lease again under the
// row's lock, so several processes looking at once handle it once, and a
// run that renewed meanwhile keeps its project. A requeue that fails (the
// database refuses the project's writes) is tried again on the loops'
// backoff (failing), not on every look. It also queues again the QUEUED
// projects whose job a process claimed and never started (unclaimed.go).
func (r *Runner) watch(ctx context.Context) error {
	now, err := r.leases.now(ctx)
	if err != nil {
		return err
	}
	ids, err := r.cfg.Store.ExpiredLeases(ctx, now)
	if err != nil {
		return err
	}
	unstarted, err := r.unstartedClaims(ctx)
	if err != nil {
		return err
	}
	// A run's job is held for as long as the run, so a project whose lease
	// ended is usually in both lists: each write checks its own case under
	// the row's lock, and the one that does not apply does nothing.
	expired := make(map[string]bool, len(ids))
	for _, id := range ids {
		expired[id] = true
	}
	for id := range unstarted {
		if !expired[id] {
			ids = append(ids, id)
		}
	}
	r.failedRequeues.attempt(ids, r.cfg.Clock(), func(id string) error {
		if expired[id] {
			if err := r.leaseEnded(ctx, id, now); err != nil {
				return err
			}
		}
		if run, ok := unstarted[id]; ok {
			return r.claimLost(ctx, id, run)
		}
		return nil
	}, func(id string, err error, n int, wait time.Duration) {
		msg := "requeue a project whose run's lease ended"
		if !expired[id] {
			msg = "requeue a project whose job's claim was lost"
		}
		r.log.Error(msg, "project", id, "err", err, "failures", n, "retryIn", wait)
	})
	return nil
}

// leaseEnded handles project id, whose run's lease ended before now without
// an outcome: an interruption, counted as a stall (stallCount+1) but not as
// a failure of the project, as a restart never is. The first in a row is
// queued again at once: a process killed once just resumes elsewhere.
// Each further one in a row waits the stall retries' backoff (retryDelay of
// the interruptions before it) as STALLED with retryAt, so a project whose
// runs keep ending so (its writes always fail) does not run every lease;
// the MaxInterruptions-th is STALLED for good, with its conclusion and the
// refund of a failure stall.
func (r *Runner) leaseEnded(ctx context.Context, id string, now time.Time) error {
	var from apitypes.Stage
	var n int64
	var retryAt time.Time
	var refunded bool
	p, _, err := r.cfg.Store.MutateProjectWithEffects(ctx, id, func(p *store.Project) (store.Effects, error) {
		if !p.Stage.Processing() || p.LeaseUntil.After(now) {
			return store.Effects{}, errStale
		}
		from, retryAt, refunded = p.Stage, time.Time{}, false
		count := int64(1)
		if p.StallCount != nil {
			count = *p.StallCount + 1
		}
		p.StallCount = &count
		p.Interruptions++
		n = p.Interruptions
		why := leaseEndedError(from)
		switch {
		case n >= int64(r.cfg.MaxInterruptions):
			text := fmt.Sprintf("%v (not retried: %d runs in a row ended without an outcome; their process died each time, or their writes kept failing)", why, n)
			p.Stage, p.Error, p.RetryAt, p.LeaseUntil = apitypes.StageStalled, &text, time.Time{}, time.Time{}
			refunded = quota.RefundsOnStall(from)
			return store.Effects{Deliveries: r.conclusionDeliveries(p, nil), Enqueue: r.enqueueDelivery(), Refund: refunded}, nil
		case n == 1:
			return r.resumeAgain(p), nil
		default:
			retryAt = r.cfg.Store.Now().Add(r.retryDelay(n - 1))
			text := fmt.Sprintf("%v (%d runs in a row ended so; retried after a backoff)", why, n)
			p.Stage, p.Error, p.RetryAt, p.LeaseUntil = apitypes.StageStalled, &text, retryAt, time.Time{}
			return store.Effects{}, nil
		}
	})
	if errors.Is(err, errStale) {
		return nil
	}
	if err != nil {
		return err
	}
	if n == 1 {
		r.log.Warn("project stage", "project", id, "from", from, "to", apitypes.StageStalled, "error", leaseEndedError(from).Error())
		r.log.Info("project stage", "project", id, "from", apitypes.StageStalled, "to", apitypes.StageQueued, "reason", "interrupted")
		return nil
	}
	r.log.Warn("project stage", "project", id, "from", from, "to", apitypes.StageStalled, "error", *p.Error,
		"interruptions", n, "retryAt", retryAt, "refunded", refunded)
	return nil
}

// leaseEndedError is the interruption the watchdog records.
func leaseEndedError(stage apitypes.Stage) error {
	return fmt.Errorf("interrupted: the process running it stopped during %s (its lease ended)", stage)
}
