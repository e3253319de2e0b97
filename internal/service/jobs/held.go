package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Held is a job River shows running: claimed by some process's worker.
type Held struct {
	ID   int64
	Kind string
	Args []byte // JSON
}

// heldPage is how many running jobs one read of HeldLongerThan lists.
const heldPage = 100

// HeldLongerThan lists the jobs of kinds that have been running for longer
// than d since their last claim, by the database's clock (River stamps a
// claim with it, on either engine), oldest claim first. A kind whose
// Timeout is long leaves a job claimed by a process that died running
// until River's rescuer takes it back, Timeout later; a kind whose work
// shows that it started some other way (a lease on its row) finds here
// the jobs whose process died before that.
//
// River lists the running jobs oldest claim first; the listing stops at
// the first claimed since the cutoff, so it reads the held jobs and one
// more, pages of heldPage at a time.
func (j *Jobs) HeldLongerThan(ctx context.Context, d time.Duration, kinds ...string) ([]Held, error) {
	if len(kinds) == 0 {
		return nil, nil
	}
	now, ok, err := j.store.DatabaseTime(ctx)
	if err != nil {
		return nil, fmt.Errorf("jobs: list held jobs: %w", err)
	}
	if !ok {
		now = time.Now() // the database's clock is this machine's
	}
	cutoff := now.Add(-d)
	params := river.NewJobListParams().States(rivertype.JobStateRunning).Kinds(kinds...).
		OrderBy(river.JobListOrderByTime, river.SortOrderAsc).First(heldPage)
	var out []Held
	for {
		res, err := j.client.JobList(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("jobs: list held jobs: %w", err)
		}
		for _, row := range res.Jobs {
			if row.AttemptedAt == nil || !row.AttemptedAt.Before(cutoff) {
				return out, nil
			}
			out = append(out, Held{ID: row.ID, Kind: row.Kind, Args: row.EncodedArgs})
		}
		if len(res.Jobs) < heldPage || res.LastCursor == nil {
			return out, nil
		}
		params = params.After(res.LastCursor)
	}
}
