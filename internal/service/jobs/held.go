package jobs

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Held is a job River shows running: claimed by some process's worker.
type Held struct {
	ID   int64
	Kind string
	Args []byte // JSON
}

// HeldLongerThan lists the jobs of kinds that have been running for longer
// than d since their last claim, by the database's clock (River stamps a
// claim with it, on either engine), oldest claim first. A kind whose
// Timeout is long leaves a job claimed by a process that died running
// until River's rescuer takes it back, Timeout later; a kind whose work
// shows that it started some other way (a lease on its row) finds here
// the jobs whose process died before that.
func (j *Jobs) HeldLongerThan(ctx context.Context, d time.Duration, kinds ...string) ([]Held, error) {
	if len(kinds) == 0 {
		return nil, nil
	}
	var q string
	args := make([]any, 0, len(kinds)+1)
	switch j.engine {
	case EnginePostgres:
		ps := make([]string, len(kinds))
		for i, k := range kinds {
			ps[i] = fmt.Sprintf("$%d", i+2)
			args = append(args, k)
		}
		q = `SELECT id, kind, args FROM river_job WHERE state = 'running'
			AND attempted_at < clock_timestamp() - make_interval(secs => $1)
			AND kind IN (` + strings.Join(ps, ", ") + `) ORDER BY attempted_at, id`
	default:
		// julianday reads River's text timestamps in any of SQLite's
		// time formats; 'now' is the same clock River's claim took.
		// River keeps args as SQLite's binary JSON; json() is its text.
		q = `SELECT id, kind, json(args) FROM river_job WHERE state = 'running'
			AND julianday(attempted_at) < julianday('now') - ? / 86400.0
			AND kind IN (` + strings.TrimSuffix(strings.Repeat("?, ", len(kinds)), ", ") + `) ORDER BY attempted_at, id`
		for _, k := range kinds {
			args = append(args, k)
		}
	}
	args = append([]any{d.Seconds()}, args...)
	rows, err := j.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("jobs: list held jobs: %w", err)
	}
	defer func() { _ = rows.Close() }()
	var out []Held
	for rows.Next() {
		var h Held
		if err := rows.Scan(&h.ID, &h.Kind, &h.Args); err != nil {
			return nil, fmt.Errorf("jobs: list held jobs: %w", err)
		}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("jobs: list held jobs: %w", err)
	}
	return out, nil
}
