package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// A project's runs, when several processes work one store: each run of the
// pipeline over a project carries the project's RunToken, which every
// requeue raises, and holds a lease (LeaseUntil) that its heartbeat renews.
// The run's writes are fenced by the token: a write checks it in the
// transaction that makes it, so a run another process took over (its lease
// ended, it was requeued) writes nothing. The pipeline checks the token of
// its own stage writes (MutateProject); the statements here fence the rest.

// ErrStaleRun is a write of a run whose token the project no longer carries.
var ErrStaleRun = errors.New("the project's run was taken over (its run token is stale)")

// DatabaseTime reads the database's clock, on PostgreSQL: processes on
// several machines take and check leases by it, as their own clocks may
// disagree by more than a lease. ok is false on SQLite, whose processes
// share one machine and so one clock.
func (s *Store) DatabaseTime(ctx context.Context) (t time.Time, ok bool, err error) {
	if s.dialect.clock == "" {
		return time.Time{}, false, nil
	}
	if err := s.db.QueryRowContext(ctx, s.dialect.clock).Scan(&t); err != nil {
		return time.Time{}, false, fmt.Errorf("read the database's clock: %w", err)
	}
	return t.UTC(), true, nil
}

// RenewLease moves the lease of run (a token) of project id to until, and
// reports whether the run still holds the project: false once the project
// is out of its processing stages or carries another token.
func (s *Store) RenewLease(ctx context.Context, id string, run int64, until time.Time) (bool, error) {
	processing := apitypes.StagesWhere(apitypes.Stage.Processing)
	res, err := s.db.ExecContext(ctx, `UPDATE projects SET lease_until = ?
		WHERE id = ? AND run_token = ? AND stage IN (`+placeholders(len(processing))+`)`,
		append([]any{Timestamp(until), id, run}, anySlice(processing)...)...)
	if err != nil {
		return false, fmt.Errorf("renew lease of project %s: %w", id, err)
	}
	if err := oneRow(res, ErrStaleRun); errors.Is(err, ErrStaleRun) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	return true, nil
}

// ExpiredLeases lists the ids of projects in a processing stage whose run's
// lease ended before now, oldest first: their process died or lost the
// store. A project without a lease (left by a release before leases) is
// among them.
func (s *Store) ExpiredLeases(ctx context.Context, now time.Time) ([]string, error) {
	processing := apitypes.StagesWhere(apitypes.Stage.Processing)
	ids, err := queryAll(ctx, s.db, scanString, `SELECT id FROM projects
		WHERE stage IN (`+placeholders(len(processing))+`) AND (lease_until IS NULL OR lease_until < ?)
		ORDER BY created_at, id`, append(anySlice(processing), Timestamp(now))...)
	if err != nil {
		return nil, fmt.Errorf("expired leases: %w", err)
	}
	return ids, nil
}

// ReplaceRunClips is ReplaceClips for run (a token) of the project: it
// writes nothing, and returns ErrStaleRun, unless the project still
// carries run, so a run taken over never replaces the clips of the one
// that took over.
func (s *Store) ReplaceRunClips(ctx context.Context, projectID, orgID string, run int64, clips []Clip) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		var have int64
		err := tx.QueryRowContext(ctx, `SELECT run_token FROM projects WHERE id = ?`+s.forUpdate(), projectID).Scan(&have)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("project %s: %w", projectID, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("read run of project %s: %w", projectID, err)
		}
		if have != run {
			return ErrStaleRun
		}
		return replaceClips(ctx, tx, projectID, orgID, clips)
	})
}

// EndLeases ends every project's lease, in the transaction it runs in:
// clipperd migrate copies a stopped installation, and clipperd restore a
// backup, whose runs hold no lease any more, so the new installation's
// watchdog requeues them at its first pass instead of waiting out leases
// nobody renews.
func EndLeases() TxHook {
	return endLeases
}

// EndAllLeases is EndLeases in a transaction of its own.
func (s *Store) EndAllLeases(ctx context.Context) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return endLeases(ctx, tx) })
}

func endLeases(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `UPDATE projects SET lease_until = NULL WHERE lease_until IS NOT NULL`); err != nil {
		return fmt.Errorf("end the copied leases: %w", err)
	}
	return nil
}
