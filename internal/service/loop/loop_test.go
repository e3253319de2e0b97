package loop

import (
	"context"
	"sync/atomic"
	"testing"
)

// TestStopWaitsForTheBody: Stop returns only after the body has returned,
// so what the body uses may be closed right after.
func TestStopWaitsForTheBody(t *testing.T) {
	l := New()
	var returned atomic.Bool
	started := make(chan struct{})
	if !l.Start(t.Context(), func(ctx context.Context, _ <-chan struct{}) {
		close(started)
		<-ctx.Done()
		returned.Store(true)
	}) {
		t.Fatal("Start of a stopped loop is false")
	}
	<-started
	l.Stop()
	if !returned.Load() {
		t.Error("Stop returned before the body did")
	}
	l.Stop() // stopping again does nothing
}

// TestWake: a wake-up sent before Start and one sent after both reach the
// body.
func TestWake(t *testing.T) {
	l := New()
	l.Wake()
	l.Wake() // folded into the one pending
	seen := make(chan struct{})
	l.Start(t.Context(), func(ctx context.Context, wake <-chan struct{}) {
		for {
			select {
			case <-ctx.Done():
				return
			case <-wake:
				select {
				case seen <- struct{}{}:
				case <-ctx.Done():
					return
				}
			}
		}
	})
	<-seen // the wake-up sent before Start
	l.Wake()
	<-seen
	l.Stop()
}

// TestStartWhileRunning: a running loop is not started twice; a stopped
// one starts again.
func TestStartWhileRunning(t *testing.T) {
	l := New()
	body := func(ctx context.Context, _ <-chan struct{}) { <-ctx.Done() }
	if !l.Start(t.Context(), body) {
		t.Fatal("first Start is false")
	}
	if l.Start(t.Context(), body) {
		t.Error("Start of a running loop is true")
	}
	l.Stop()
	if !l.Start(t.Context(), body) {
		t.Error("Start after Stop is false")
	}
	l.Stop()
}
