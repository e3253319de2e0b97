package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Count is how many jobs of a queue are in a state (River's: available,
// scheduled, running, retryable, completed, discarded, cancelled, pending).
type Count struct {
	Queue, State string
	Jobs         int64
}

// Counts reads the number of jobs by queue and state, for metrics: one
// short read, the same SQL on every engine. River's client has no count
// (JobList reads rows; its drivers' counts are by state alone, or by queue
// of available and running jobs only), so this is the one query of
// River's tables outside River.
func (j *Jobs) Counts(ctx context.Context) ([]Count, error) {
	rows, err := j.store.DB().QueryContext(ctx, `SELECT queue, state, COUNT(*) FROM river_job GROUP BY queue, state ORDER BY queue, state`)
	if err != nil {
		return nil, fmt.Errorf("jobs: count: %w", err)
	}
	defer func() { _ = rows.Close() }()
	var out []Count
	for rows.Next() {
		var c Count
		if err := rows.Scan(&c.Queue, &c.State, &c.Jobs); err != nil {
			return nil, fmt.Errorf("jobs: count: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("jobs: count: %w", err)
	}
	return out, nil
}

// Info is one job as an operator sees it.
type Info struct {
	ID                   int64
	Kind, Queue, State   string
	Attempt, MaxAttempts int
	Args                 string // JSON
	Errors               []string
	CreatedAt            time.Time
}

// Recent lists up to n jobs of queue, newest first, with the error of each
// failed attempt.
func (j *Jobs) Recent(ctx context.Context, queue string, n int) ([]Info, error) {
	res, err := j.client.JobList(ctx, river.NewJobListParams().Queues(queue).First(n).OrderBy(river.JobListOrderByID, river.SortOrderDesc))
	if err != nil {
		return nil, fmt.Errorf("jobs: list %s: %w", queue, err)
	}
	out := make([]Info, 0, len(res.Jobs))
	for _, row := range res.Jobs {
		out = append(out, infoOf(row))
	}
	return out, nil
}

func infoOf(row *rivertype.JobRow) Info {
	in := Info{ID: row.ID, Kind: row.Kind, Queue: row.Queue, State: string(row.State), Attempt: row.Attempt,
		MaxAttempts: row.MaxAttempts, Args: string(row.EncodedArgs), CreatedAt: row.CreatedAt}
	for _, e := range row.Errors {
		in.Errors = append(in.Errors, e.Error)
	}
	return in
}
