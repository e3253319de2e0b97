// Package loop runs a component's one background goroutine: Start starts
// it, Wake asks it to look for work now, and Stop cancels it, then always
// waits for it to return, so the component may close what the goroutine
// uses as soon as Stop returns.
package loop

import (
	"context"
	"sync"
)

// Loop is one background goroutine. Make it with New.
type Loop struct {
	wake chan struct{}

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

// New returns a stopped loop.
func New() *Loop { return &Loop{wake: make(chan struct{}, 1)} }

// Start runs body in a goroutine until Stop or the end of ctx; body reads
// the wake-ups of Wake from wake and must return once its ctx is done. It
// is false, starting nothing, while the loop runs.
func (l *Loop) Start(ctx context.Context, body func(ctx context.Context, wake <-chan struct{})) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cancel != nil {
		return false
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	l.cancel, l.done = cancel, done
	go func() {
		defer close(done)
		body(ctx, l.wake)
	}()
	return true
}

// Wake asks the body to look for work now, without blocking; wake-ups
// before the body reads one are one.
func (l *Loop) Wake() {
	select {
	case l.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// Stop cancels the body's context, then always waits for the body to
// return. Stopping a loop that does not run does nothing; it may be started
// again after.
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
