package pipeline

import (
	"context"
	"errors"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/backoff"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// Defaults of the retry of a project's state writes: five attempts over
// about 7.5 s, enough for an operator or the janitor to free a full disk
// before the watchdog has to step in.
const (
	defaultWriteAttempts  = 5
	defaultWriteRetryBase = 500 * time.Millisecond
	writeRetryMax         = 30 * time.Second
)

// errStale is an interruption of a run that is no longer the one to
// interrupt: its project moved on since it was read.
var errStale = errors.New("project changed since it was read")

// persist runs write, a write of a project's state (its stage, stall or
// completion), again after a failure (a full disk, a database error) with
// backoff, WriteAttempts times in all. A refusal (the project is not in the
// state the write expects, or gone) is final at once, and so is a wait cut
// by ctx. The error is the last attempt's.
func (r *Runner) persist(ctx context.Context, what, id string, write func() error) error {
	for n := 1; ; n++ {
		err := write()
		if err == nil || !retryableWrite(err) || n >= r.cfg.WriteAttempts {
			return err
		}
		wait := backoff.Exponential(n, r.cfg.WriteRetryBase, writeRetryMax)
		r.log.Warn("persist failed; retrying", "what", what, "project", id, "attempt", n, "wait", wait, "full", store.IsFull(err), "err", err)
		if r.sleep(ctx, wait) != nil {
			return err
		}
	}
}

// retryableWrite tells a write failure worth another attempt from a refusal.
// A database that stayed unreachable through the store's own retries
// (dependency.UnreachableError) is final here too: each attempt would wait
// its whole window again, and the watchdog takes the run over instead.
func retryableWrite(err error) bool {
	var away *dependency.UnreachableError
	return !errors.As(err, &away) && !errors.Is(err, errNotQueued) && !errors.Is(err, errStale) && !errors.Is(err, store.ErrStaleRun) && !errors.Is(err, store.ErrNotFound) &&
		!errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}
