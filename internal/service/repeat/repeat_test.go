package repeat

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// passes counts passes and reports each on a channel.
type passes struct {
	n    atomic.Int32
	seen chan int32
}

func newPasses() *passes { return &passes{seen: make(chan int32, 100)} }

// pass waits an hour between passes unless woken.
func (p *passes) pass(context.Context) (time.Duration, error) {
	p.seen <- p.n.Add(1)
	return time.Hour, nil
}

func (p *passes) await(t *testing.T, want int32) {
	t.Helper()
	select {
	case got := <-p.seen:
		if got != want {
			t.Fatalf("pass %d, want %d", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("pass %d did not come", want)
	}
}

func TestRunsAtOnceThenOnWake(t *testing.T) {
	var l Loop
	p := newPasses()
	l.Start(context.Background(), p.pass)
	defer l.Stop()
	p.await(t, 1)
	l.Wake()
	p.await(t, 2)
	l.Wake()
	p.await(t, 3)
}

// In a synctest bubble the clock is the bubble's: each pass comes exactly
// the wait it asked for after the one before, however loaded the machine.
func TestRunsAgainWhenTheWaitRunsOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var l Loop
		const wait = 3 * time.Minute
		seen := make(chan time.Time, 10)
		l.Start(context.Background(), func(context.Context) (time.Duration, error) {
			seen <- time.Now()
			return wait, nil
		})
		defer l.Stop()
		last := <-seen
		for range 3 {
			at := <-seen
			if got := at.Sub(last); got != wait {
				t.Fatalf("a pass %s after the one before, want the wait, %s", got, wait)
			}
			last = at
		}
	})
}

func TestStopCancelsThenWaitsForThePass(t *testing.T) {
	var l Loop
	started := make(chan struct{})
	var finished atomic.Bool
	l.Start(context.Background(), func(ctx context.Context) (time.Duration, error) {
		close(started)
		<-ctx.Done()
		finished.Store(true)
		return time.Hour, nil
	})
	<-started
	l.Stop()
	if !finished.Load() {
		t.Fatal("Stop returned while the pass still ran")
	}
	l.Stop() // a second Stop does nothing

	// A stopped loop starts again.
	p := newPasses()
	l.Start(context.Background(), p.pass)
	p.await(t, 1)
	l.Stop()
}

func TestDrainTakesBatchesUntilNoneIsLeft(t *testing.T) {
	queue := []int{1, 2, 3, 4, 5}
	next := func(_ context.Context, limit int) ([]int, error) {
		n := min(limit, len(queue))
		batch := queue[:n]
		queue = queue[n:]
		return batch, nil
	}
	var batches [][]int
	err := Drain(context.Background(), 2, next, func(_ context.Context, b []int) error {
		batches = append(batches, b)
		return nil
	})
	if err != nil || len(batches) != 3 || len(batches[2]) != 1 {
		t.Fatalf("batches %v, %v; want [1 2] [3 4] [5]", batches, err)
	}

	boom := errors.New("boom")
	failing := func(context.Context, int) ([]int, error) { return nil, boom }
	if err := Drain(context.Background(), 2, failing, nil); !errors.Is(err, boom) {
		t.Fatalf("a failing next: %v, want boom", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopping := func(context.Context, []int) error { cancel(); return boom }
	if err := Drain(ctx, 2, func(context.Context, int) ([]int, error) { return []int{1}, nil }, stopping); err != nil {
		t.Fatalf("a handle that fails as ctx ends: %v, want nil", err)
	}
}

// A pass that keeps failing is run again on the failure curve, not at the
// wait it asked for, and the curve starts over after a pass succeeds.
func TestFailingPassesBackOff(t *testing.T) {
	synctest.Test(t, testFailingPassesBackOff)
}

func testFailingPassesBackOff(t *testing.T) {
	l := Loop{FailureBase: time.Second, FailureMax: 8 * time.Second}
	boom := errors.New("database or disk is full")
	var fail atomic.Bool
	fail.Store(true)
	type failure struct {
		n    int
		wait time.Duration
	}
	seen := make(chan failure, 100)
	l.OnFailure = func(err error, n int, wait time.Duration) {
		if !errors.Is(err, boom) {
			t.Errorf("OnFailure got %v", err)
		}
		seen <- failure{n, wait}
	}
	passes := make(chan bool, 100) // each pass: did it fail
	var started []time.Time        // when each pass began, on the bubble's clock
	l.Start(context.Background(), func(context.Context) (time.Duration, error) {
		failed := fail.Load()
		started = append(started, time.Now())
		passes <- failed
		if failed {
			return 0, boom // a pass asking for no wait at all
		}
		return time.Hour, nil
	})
	defer l.Stop()
	next := func() failure {
		t.Helper()
		return <-seen // a loop that reports none leaves the bubble blocked: synctest fails the test
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second}
	for i, w := range want {
		if f := next(); f.n != i+1 || f.wait != w {
			t.Fatalf("failure %d: %+v, want n=%d wait=%s", i+1, f, i+1, w)
		}
	}
	// The waits are kept, not only reported: pass i+1 began want[i] after pass i.
	<-passes
	synctest.Wait()
	for i, w := range want[:len(want)-1] {
		if got := started[i+1].Sub(started[i]); got != w {
			t.Errorf("pass %d began %s after pass %d, want %s", i+2, got, i+1, w)
		}
	}
	fail.Store(false)
	for <-passes {
	} // until a pass succeeds: the next waits its hour
	for len(seen) > 0 {
		<-seen // failures of passes that began before
	}
	fail.Store(true)
	l.Wake()
	if f := next(); f.n != 1 || f.wait != time.Second {
		t.Fatalf("first failure after a success: %+v, want the curve from its start", f)
	}
}
