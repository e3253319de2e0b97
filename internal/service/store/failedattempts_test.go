package store

import (
	"context"
	"testing"
	"time"
)

// TestFailedAttemptsCount: each failed attempt moves the client's time one
// interval on from now or from itself; past the bound a further attempt
// spends nothing; time brings attempts back; clients with every attempt
// back are forgotten, others kept.
func TestFailedAttemptsCount(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		ctx := context.Background()
		now := time.Unix(1_700_000_000, 0)
		const every, blockAfter = 6 * time.Second, 12 * time.Second // a bucket of 3
		until := func(client string) time.Time {
			t.Helper()
			u, err := s.FailedAttemptsUntil(ctx, client)
			if err != nil {
				t.Fatal(err)
			}
			return u
		}
		if u := until("c"); !u.IsZero() {
			t.Fatalf("a new client counted until %v", u)
		}
		for i := range 4 {
			if err := s.SpendFailedAttempt(ctx, "c", now, every, blockAfter); err != nil {
				t.Fatal(err)
			}
			want := now.Add(time.Duration(min(i+1, 3)) * every) // the fourth is past the bound
			if u := until("c"); !u.Equal(want) {
				t.Errorf("after %d attempts: until %v, want %v", i+1, u.Sub(now), want.Sub(now))
			}
		}
		// 7 s later one attempt came back: counted from the client's time.
		if err := s.SpendFailedAttempt(ctx, "c", now.Add(7*time.Second), every, blockAfter); err != nil {
			t.Fatal(err)
		}
		if u := until("c"); !u.Equal(now.Add(4 * every)) {
			t.Errorf("after an attempt came back: until +%v, want +%v", u.Sub(now), 4*every)
		}
		// Long after, an attempt counts from now.
		later := now.Add(time.Hour)
		if err := s.SpendFailedAttempt(ctx, "d", now, every, blockAfter); err != nil {
			t.Fatal(err)
		}
		if err := s.SpendFailedAttempt(ctx, "c", later, every, blockAfter); err != nil {
			t.Fatal(err)
		}
		if u := until("c"); !u.Equal(later.Add(every)) {
			t.Errorf("an hour later: until %v, want one interval past now", u.Sub(later))
		}
		if err := s.ForgetFailedAttempts(ctx, later); err != nil {
			t.Fatal(err)
		}
		if !until("d").IsZero() || until("c").IsZero() {
			t.Errorf("forgetting at %v: d until %v (want forgotten), c until %v (want kept)", later, until("d"), until("c"))
		}
	})
}
