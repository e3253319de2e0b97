// Package repeat runs a pass of background work again and again: at once,
// then whenever it is woken or the wait the pass asked for runs out, until
// it is stopped; Drain is such a pass over a queue kept in the store. The
// outbound dispatcher, the publish worker and the publish scheduler share
// them, so each works through its queue and stops the same way: cancel,
// then always wait.
package repeat

import (
	"context"
	"sync"
	"time"
)

// Loop runs one pass function in a goroutine. The zero Loop is ready to
// Start; it may be started again after Stop.
type Loop struct {
	mu     sync.Mutex
	wake   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

// Start runs pass until Stop or ctx ends: now, then each time the wait pass
// returned has passed or Wake was called, whichever comes first. Start while
// the loop runs does nothing.
func (l *Loop) Start(ctx context.Context, pass func(context.Context) time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cancel != nil {
		return
	}
	ctx, l.cancel = context.WithCancel(ctx)
	l.done = make(chan struct{})
	go run(ctx, l.done, l.wakeChan(), pass)
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

func run(ctx context.Context, done chan struct{}, wake <-chan struct{}, pass func(context.Context) time.Duration) {
	defer close(done)
	for {
		wait := pass(ctx)
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
