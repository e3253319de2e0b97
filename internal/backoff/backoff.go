// Package backoff computes retry delays. The API client, the pipeline's
// stall retries and the outbound dispatcher all wait base, 2*base, 4*base...
// up to a cap; this is the one place that curve is written.
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Exponential returns the delay before retry number n (1-based):
// base*2^(n-1), capped at ceiling. n < 1 counts as 1; a non-positive base
// gives 0.
func Exponential(n int, base, ceiling time.Duration) time.Duration {
	if base <= 0 {
		return 0
	}
	d := base
	for i := 1; i < n && d < ceiling; i++ {
		d *= 2
	}
	return min(d, ceiling)
}

// Jittered is Exponential with "equal jitter": half the delay fixed, half
// random, so parallel clients do not retry in lockstep yet never retry at once.
func Jittered(n int, base, ceiling time.Duration) time.Duration {
	d := Exponential(n, base, ceiling)
	if d <= 0 {
		return 0
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// Retry is how a queue retries an item that failed: it waits Base after the
// first failure, doubling up to Max, and gives up after Attempts attempts
// in all.
type Retry struct {
	Base, Max time.Duration
	Attempts  int
}

// Or is r with each unset (non-positive) field taken from def.
func (r Retry) Or(def Retry) Retry {
	return Retry{Base: positiveOr(r.Base, def.Base), Max: positiveOr(r.Max, def.Max), Attempts: positiveOr(r.Attempts, def.Attempts)}
}

func positiveOr[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// After says what follows the n-th failed attempt (1-based): give up, or
// wait before the next one.
func (r Retry) After(n int) (wait time.Duration, giveUp bool) {
	if n >= r.Attempts {
		return 0, true
	}
	return Exponential(n, r.Base, r.Max), false
}

// Sleep waits d, or until ctx ends (its error then): the wait between two
// attempts of every retry on the curve.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
