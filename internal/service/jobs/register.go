package jobs

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"

	"github.com/clipperhq/terraform-provider-clipper/internal/backoff"
)

// Args are a job's arguments, stored as JSON; Kind names the kind, once and
// for ever (stored jobs are found by it).
type Args interface {
	Kind() string
}

// Job is one attempt at a job, as its work function sees it.
type Job[T Args] struct {
	ID          int64
	Attempt     int // 1 on the first attempt
	MaxAttempts int
	Args        T

	row *river.Job[T]
}

// LastAttempt is true when a failure now is final: the work function
// records the failure on its row itself, since no retry will.
func (j *Job[T]) LastAttempt() bool { return j.Attempt >= j.MaxAttempts }

// Kind is how jobs of one kind run.
type Kind struct {
	// Queue is one of the Queue constants.
	Queue string
	// Timeout bounds one attempt (its context ends then) and is its lease:
	// a job whose process died is retried once it has run this long (and at
	// least RescueAfter). Zero takes DefaultTimeout.
	Timeout time.Duration
	// Unique: a job whose args equal those of one already waiting, running
	// or completed is not added (for jobs named by the id of their row).
	Unique bool
	// Retry is this kind's retry budget on the backoff curve (a delivery's
	// is not a copy's); zero fields take the Jobs' Config.Retry.
	Retry backoff.Retry
}

func (k Kind) insertOpts() *river.InsertOpts {
	opts := &river.InsertOpts{Queue: k.Queue, MaxAttempts: k.Retry.Attempts}
	if k.Unique {
		opts.UniqueOpts = river.UniqueOpts{ByArgs: true}
	}
	return opts
}

// Register makes work run the jobs of args kind T; every kind is registered
// before Start, and a process inserts only the kinds it registered.
func Register[T Args](j *Jobs, k Kind, work func(context.Context, *Job[T]) error) error {
	var zero T
	if _, ok := queueWorkers[k.Queue]; !ok {
		return fmt.Errorf("jobs: kind %q: unknown queue %q", zero.Kind(), k.Queue)
	}
	k.Timeout = cmp.Or(k.Timeout, DefaultTimeout)
	k.Retry = k.Retry.Or(j.retry)
	if err := river.AddWorkerSafely(j.workers, &worker[T]{jobs: j, timeout: k.Timeout, retry: k.Retry, work: work}); err != nil {
		return fmt.Errorf("jobs: %w", err)
	}
	j.mu.Lock()
	j.kinds[zero.Kind()] = k
	j.mu.Unlock()
	return nil
}

// CompleteTx marks job completed in tx, so the job ends exactly when the
// change it made commits; call it from job's work function with its ctx.
func CompleteTx[T Args](ctx context.Context, tx *sql.Tx, job *Job[T]) error {
	// The driver type only names the transaction type; any engine's works.
	if _, err := river.JobCompleteTx[riverdriver.Driver[*sql.Tx]](ctx, tx, job.row); err != nil {
		return fmt.Errorf("jobs: complete %s %d: %w", job.Args.Kind(), job.ID, err)
	}
	return nil
}

// worker adapts a work function to River.
type worker[T Args] struct {
	river.WorkerDefaults[T]
	jobs    *Jobs
	timeout time.Duration
	retry   backoff.Retry
	work    func(context.Context, *Job[T]) error
}

func (w *worker[T]) Timeout(*river.Job[T]) time.Duration { return w.timeout }

// NextRetry puts the kind's own budget on the one curve.
func (w *worker[T]) NextRetry(job *river.Job[T]) time.Time {
	return curve{w.retry}.NextRetry(job.JobRow)
}

func (w *worker[T]) Work(ctx context.Context, rj *river.Job[T]) error {
	err := w.work(ctx, &Job[T]{ID: rj.ID, Attempt: rj.Attempt, MaxAttempts: rj.MaxAttempts, Args: rj.Args, row: rj})
	if err != nil && ctx.Err() != nil && w.jobs.stopping.Load() {
		// Cut short by Stop: hand it back, available to the next worker
		// at once, without counting the attempt.
		return river.JobSnooze(0)
	}
	if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		return fmt.Errorf("ran longer than its timeout %s: %w", w.timeout, err)
	}
	return err
}
