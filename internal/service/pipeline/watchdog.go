package pipeline

import (
	"context"
	"fmt"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// watch is the watchdog, run on every scan: a project in a processing stage
// that no worker of this process holds has stopped making progress. Its
// worker gave up because its last write failed (a full disk), so the stage
// it reached was never followed by STALLED or COMPLETE, and it would hold
// its org's concurrent slot until a restart. The watchdog stalls it as a
// transient failure: it is retried with backoff, and stalls for good once
// its retries are used up, which frees the slot. A project that changed
// since it was read (a worker finished it meanwhile) is left alone.
func (r *Runner) watch(ctx context.Context) error {
	ps, err := r.cfg.Store.ProjectsInStages(ctx, apitypes.StagesWhere(apitypes.Stage.Processing)...)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if r.isKnown(p.ID) {
			continue
		}
		seen := *p
		r.stallWhen(ctx, p.ID, p.Stage, stoppedError(p.Stage), 0, func(now *store.Project) bool {
			return now.Stage == seen.Stage && now.UpdatedAt.Equal(seen.UpdatedAt)
		})
	}
	return nil
}

func (r *Runner) isKnown(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.known[id]
}

// stoppedError is the stall the watchdog records.
func stoppedError(stage apitypes.Stage) error {
	return &failure{err: fmt.Errorf("stopped making progress in %s (its last state could not be saved)", stage)}
}
