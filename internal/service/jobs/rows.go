package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
)

// RowKind is a kind of job each of whose jobs works one row of the store,
// the row its args name: the job is inserted in the transaction that stores
// the row (Rows.Enqueue), given again at start to every row that needs one
// and has none (Rows.Adopt), and ended without a retry once its row is gone.
// Copy and censor jobs, conclusion deliveries and posts are such kinds.
type RowKind[A Args, ID, R any] struct {
	// Kind is how the jobs run; Unique is always set, so adopting a row
	// whose job waits or runs adds none.
	Kind
	// Row names the row in logs and errors ("copy job", "delivery").
	Row string
	// Pending lists the ids of the rows that still need their job's work
	// (Adopt), and Args is the job of a row's id.
	Pending func(ctx context.Context) ([]ID, error)
	Args    func(id ID) A
	// ID is the id of the row a job's args name.
	ID func(a A) ID
	// Get reads a row (and may claim it, as a censor job's start does). An
	// error that is Gone ends the job: its row was deleted, and no retry
	// brings it back.
	Get func(ctx context.Context, id ID) (R, error)
	// Gone is Get's error for a row that is not there (store.ErrNotFound).
	Gone error
	// Needs tells whether a row still needs the work: one an earlier
	// attempt finished ends the job.
	Needs func(row R) bool
	// Work does the job's work on its row; an error retries the job.
	Work   func(ctx context.Context, job *Job[A], row R) error
	Logger *slog.Logger // nil = discard
}

// RegisterRows registers k's work with j, like Register, and returns the
// inserts of its jobs.
func RegisterRows[A Args, ID, R any](j *Jobs, k RowKind[A, ID, R]) (*Rows[A], error) {
	if k.Pending == nil || k.Args == nil || k.ID == nil || k.Get == nil || k.Needs == nil || k.Work == nil {
		return nil, fmt.Errorf("jobs: %s: Pending, Args, ID, Get, Needs and Work are required", k.Row)
	}
	logger := k.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	k.Unique = true
	err := Register(j, k.Kind, func(ctx context.Context, job *Job[A]) error {
		id := k.ID(job.Args)
		row, err := k.Get(ctx, id)
		switch {
		case k.Gone != nil && errors.Is(err, k.Gone):
			logger.Warn(k.Row+" row gone", "id", id, "job", job.ID)
			return nil
		case err != nil:
			return fmt.Errorf("read %s %v: %w", k.Row, id, err)
		case !k.Needs(row):
			return nil
		}
		return k.Work(ctx, job, row)
	})
	if err != nil {
		return nil, err
	}
	return NewRows(j, k.Row, func(ctx context.Context) ([]A, error) {
		ids, err := k.Pending(ctx)
		pending := make([]A, len(ids))
		for i, id := range ids {
			pending[i] = k.Args(id)
		}
		return pending, err
	}), nil
}

// Rows inserts the jobs of a kind whose jobs each work one row: a RowKind's,
// or those of a kind registered with Register whose work checks its row
// itself (a project run's claim, fenced by the project's run token).
type Rows[A Args] struct {
	jobs    *Jobs
	row     string
	pending func(ctx context.Context) ([]A, error)
}

// NewRows makes the inserts of the jobs of rows named row, whose pending
// rows (the args of those that need a job) pending lists. Their kinds must
// be registered Unique, or Adopt would add a second job to a row that has
// one.
func NewRows[A Args](j *Jobs, row string, pending func(ctx context.Context) ([]A, error)) *Rows[A] {
	return &Rows[A]{jobs: j, row: row, pending: pending}
}

// Enqueue is the store's hook (store.TxHook) that inserts a row's job in
// the transaction that stores the row, so the job exists exactly when the
// row does. argsOf makes the job's args inside that transaction, once the
// store has given the row its id.
func (r *Rows[A]) Enqueue(argsOf func() A) func(context.Context, *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		return r.jobs.InsertTx(ctx, tx, argsOf())
	}
}

// Adopt gives every pending row without a job one: rows an older release
// stored before the job system, and those whose job gave up. A row whose job
// waits or runs keeps it (the kind is unique by its args).
func (r *Rows[A]) Adopt(ctx context.Context) error {
	pending, err := r.pending(ctx)
	if err != nil {
		return fmt.Errorf("adopt: list the pending %s rows: %w", r.row, err)
	}
	for _, a := range pending {
		if err := r.jobs.Insert(ctx, a); err != nil {
			return fmt.Errorf("adopt %s %+v: %w", r.row, a, err)
		}
	}
	return nil
}
