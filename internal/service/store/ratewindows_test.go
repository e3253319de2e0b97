package store

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestTakeRateWindowSerialises: takes of one key from many goroutines at
// once each see the times the others saved (none is lost, as a read then
// a separate write would lose them on PostgreSQL), starting from a key with
// no row; a take that does not write leaves the window as it was.
func TestTakeRateWindowSerialises(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		ctx := context.Background()
		const n = 24
		base := time.Unix(1_700_000_000, 0)
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for range n {
			wg.Go(func() {
				errs <- s.TakeRateWindow(ctx, "k", func(times []time.Time) ([]time.Time, bool) {
					return append(times, base.Add(time.Duration(len(times)))), true
				})
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.RateWindow(ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Fatalf("window holds %d times after %d takes, want %d", len(got), n, n)
		}
		for i, tm := range got {
			if !tm.Equal(base.Add(time.Duration(i))) {
				t.Fatalf("time %d is %v, want %v: a take saw a stale window", i, tm, base.Add(time.Duration(i)))
			}
		}
		var seen int
		if err := s.TakeRateWindow(ctx, "k", func(times []time.Time) ([]time.Time, bool) {
			seen = len(times)
			return nil, false
		}); err != nil {
			t.Fatal(err)
		}
		if after, _ := s.RateWindow(ctx, "k"); seen != n || len(after) != n {
			t.Errorf("a take that writes nothing saw %d and left %d times, want %d and %d", seen, len(after), n, n)
		}
	})
}
