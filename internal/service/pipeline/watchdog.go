package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// watch is the watchdog, run on every scan of every process that works the
// pipeline: a project in a processing stage whose run's lease ended has no
// live run. Its process died (kill -9, a lost machine), lost the database,
// or gave up because its writes kept failing (a full disk). The watchdog
// queues it again at once as interrupted: a stall that is counted but is
// no failure of the project, as a restart never is. The write checks the
// lease again under the row's lock, so several processes looking at once
// queue it once, and a run that renewed meanwhile keeps its project.
func (r *Runner) watch(ctx context.Context) error {
	ids, err := r.cfg.Store.ExpiredLeases(ctx, time.Now())
	if err != nil {
		return err
	}
	for _, id := range ids {
		err := r.interrupt(ctx, id, leaseEndedError, func(p *store.Project) bool {
			return p.Stage.Processing() && !p.LeaseUntil.After(time.Now())
		})
		if err != nil {
			r.log.Error("requeue a project whose run's lease ended", "project", id, "err", err)
		}
	}
	return nil
}

// leaseEndedError is the interruption the watchdog records.
func leaseEndedError(stage apitypes.Stage) error {
	return fmt.Errorf("interrupted: the process running it stopped during %s (its lease ended)", stage)
}
