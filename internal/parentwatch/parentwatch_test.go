package parentwatch

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// gone is called once the parent id changes, and not while it stays.
func TestWatchCallsGoneWhenTheParentChanges(t *testing.T) {
	var ppid atomic.Int64
	ppid.Store(4242)
	called := make(chan struct{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var looks atomic.Int64
	if !watch(ctx, time.Millisecond, func() int { looks.Add(1); return int(ppid.Load()) }, func() { close(called) }) {
		t.Fatal("not watching a process with a parent")
	}
	for looks.Load() < 5 { // a few looks at the same parent first
		time.Sleep(time.Millisecond)
	}
	select {
	case <-called:
		t.Fatal("gone called while the parent is still there")
	default:
	}
	ppid.Store(1) // re-parented to init
	<-called
}

// A process whose parent is init is not watched.
func TestWatchIgnoresAnInitChild(t *testing.T) {
	if watch(t.Context(), time.Millisecond, func() int { return 1 }, func() { t.Error("gone called for a child of init") }) {
		t.Fatal("watching a child of init")
	}
}
