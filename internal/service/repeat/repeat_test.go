package repeat

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// passes counts passes and reports each on a channel.
type passes struct {
	n    atomic.Int32
	seen chan int32
}

func newPasses() *passes { return &passes{seen: make(chan int32, 100)} }

// pass waits an hour between passes unless woken.
func (p *passes) pass(context.Context) time.Duration {
	p.seen <- p.n.Add(1)
	return time.Hour
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

func TestRunsAgainWhenTheWaitRunsOut(t *testing.T) {
	var l Loop
	seen := make(chan struct{}, 10)
	l.Start(context.Background(), func(context.Context) time.Duration {
		seen <- struct{}{}
		return time.Millisecond
	})
	defer l.Stop()
	for range 3 {
		select {
		case <-seen:
		case <-time.After(10 * time.Second):
			t.Fatal("the loop did not run again after its wait")
		}
	}
}

func TestStopCancelsThenWaitsForThePass(t *testing.T) {
	var l Loop
	started := make(chan struct{})
	var finished atomic.Bool
	l.Start(context.Background(), func(ctx context.Context) time.Duration {
		close(started)
		<-ctx.Done()
		finished.Store(true)
		return time.Hour
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
