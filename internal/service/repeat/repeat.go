// Package repeat runs a pass of background work again and again: at once,
// then whenever it is woken or the wait the pass asked for runs out, until
// it is stopped, and on a failure curve while its passes fail; Drain is such
// a pass over a queue kept in the store. The publish scheduler and the
// janitor share them, so each works through its queue, backs off and stops
// the same way: cancel, then always wait.
package repeat

import (
	"context"
	"sync"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/backoff"
)

// Pass is one round of background work. It returns the wait before the
// next round, or an error, after which the loop waits on the failure curve
// instead until a round succeeds.
type Pass func(ctx context.Context) (time.Duration, error)

// The failure curve: the wait after the n-th failure in a row doubles from
// FailureBase to FailureMax. A store that cannot be written (a full disk)
// is tried, and its failure logged, six times in the first minute and then
// every five minutes, never in a tight loop.
const (
	FailureBase = time.Second
	FailureMax  = 5 * time.Minute
)

// Loop runs one pass function in a goroutine. The zero Loop is ready to
// Start; it may be started again after Stop.
type Loop struct {
	// OnFailure, when set, is told of each failed pass: its error, the
	// failures in a row so far and the wait before the next pass. Owners
	// log there, so the log grows on the failure curve too.
	OnFailure func(err error, failures int, retryIn time.Duration)
	// FailureBase and FailureMax override the curve's constants (tests).
	FailureBase, FailureMax time.Duration

	mu     sync.Mutex
	wake   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

// Start runs pass until Stop or ctx ends: now, then each time the wait pass
// returned (or the failure curve's, after an error) has passed or Wake was
// called, whichever comes first. Start while the loop runs does nothing.
func (l *Loop) Start(ctx context.Context, pass Pass) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cancel != nil {
		return
	}
	ctx, l.cancel = context.WithCancel(ctx)
	l.done = make(chan struct{})
	go l.run(ctx, l.done, l.wakeChan(), pass)
}

// Wake asks for the next pass now instead of at the end of the wait; a pass
// in progress is followed by another at once.
func (l *Loop) Wake() {
	l.mu.Lock()
	wake := l.wakeChan()
	l.mu.Unlock()
	select {
	case wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// wakeChan is the wake-up channel, made on first use; l.mu is held.
func (l *Loop) wakeChan() chan struct{} {
	if l.wake == nil {
		l.wake = make(chan struct{}, 1)
	}
	return l.wake
}

// Stop cancels the pass in progress, then always waits for the loop to
// return, so nothing the pass uses is touched after Stop. Stop without
// Start, or twice, does nothing.
func (l *Loop) Stop() {
	l.mu.Lock()
	cancel, done := l.cancel, l.done
	l.cancel = nil
	l.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-done
}

func (l *Loop) run(ctx context.Context, done chan struct{}, wake <-chan struct{}, pass Pass) {
	defer close(done)
	failures := 0
	for {
		wait, err := pass(ctx)
		switch {
		case ctx.Err() != nil:
			return // a pass cut short by Stop is no failure
		case err != nil:
			failures++
			wait = backoff.Exponential(failures, positive(l.FailureBase, FailureBase), positive(l.FailureMax, FailureMax))
			if l.OnFailure != nil {
				l.OnFailure(err, failures, wait)
			}
		default:
			failures = 0
		}
		t := time.NewTimer(max(wait, 0))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		case <-wake:
			t.Stop()
		}
	}
}

// Drain is the body of a pass over a queue: it takes batches of up to limit
// items from next and hands each to handle, until next has none or ctx
// ends. The error is next's or handle's; none once ctx ended, since a pass
// cut short by Stop is not a failure.
func Drain[T any](ctx context.Context, limit int, next func(context.Context, int) ([]T, error), handle func(context.Context, []T) error) error {
	for ctx.Err() == nil {
		batch, err := next(ctx, limit)
		if err == nil && len(batch) == 0 {
			return nil
		}
		if err == nil {
			err = handle(ctx, batch)
		}
		if err != nil && ctx.Err() == nil {
			return err
		}
	}
	return nil
}

func positive(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
