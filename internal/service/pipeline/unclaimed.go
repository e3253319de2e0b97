package pipeline

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// A run's job is claimed by River (its state running) a moment before the
// run claims the project (its lease): between the two the process looks up
// the organization's share (takeShare), and a run over it is put back
// (orgSnooze), which River records after the work function returns. A
// process killed in that window leaves a job running, by River's lights,
// on a project still QUEUED without a lease: the watchdog's lease check
// does not see it, River's rescuer takes the job back only after
// runTimeout (a day), and adopting the project adds nothing (the kind is
// unique by its args). Taking the lease in River's claim is not possible
// (River claims in its own statement), and the share must be looked up
// before a lease is taken, so the window stays and the watchdog closes it:
// a job held longer than a lease whose project still waits with the job's
// token was never started by a live process, since a live one claims the
// project within milliseconds of River's claim (its writes retried for a
// few seconds at most, persist).

// unstartedClaims maps each project whose run or import job has been held
// by River for longer than a lease (by the database's clock) to the job's
// run token; the latest token when a project has several (the others are
// stale anyway). Whether the project still waits with that token is
// checked by claimLost, under the row's lock.
func (r *Runner) unstartedClaims(ctx context.Context) (map[string]int64, error) {
	held, err := r.cfg.Jobs.HeldLongerThan(ctx, r.cfg.Lease, runArgs{}.Kind(), importArgs{}.Kind())
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, h := range held {
		var a runArgs
		if err := json.Unmarshal(h.Args, &a); err != nil {
			r.log.Error("read the args of a held pipeline job", "job", h.ID, "kind", h.Kind, "err", err)
			continue
		}
		if run, ok := out[a.ProjectID]; !ok || a.Run > run {
			out[a.ProjectID] = a.Run
		}
	}
	return out, nil
}

// claimLost queues project id again, with a new token and its job in one
// transaction, when it still waits with token run: the claim of run's job
// was lost with its process. Not an interruption (no run started, nothing
// to count); the job left running ends at once when River's rescuer hands
// it back, its token stale. Several processes looking at once queue it
// once: the first raises the token, the others find it stale.
func (r *Runner) claimLost(ctx context.Context, id string, run int64) error {
	_, _, err := r.cfg.Store.MutateProjectWithEffects(ctx, id, func(p *store.Project) (store.Effects, error) {
		if p.RunToken != run || !p.Stage.Waiting() {
			return store.Effects{}, errStale
		}
		return r.queueAgain(p), nil
	})
	if errors.Is(err, errStale) || errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	r.log.Warn("project queued again: its job was claimed by a process that never started it", "project", id,
		"run", run, "heldLongerThan", r.cfg.Lease, "stage", apitypes.StageQueued)
	return nil
}
