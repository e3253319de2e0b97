// Package dependencytest gives tests of dependency.Retry a clock that does
// not run by itself: each wait of a retry is reported and lasts until the
// test lets it end, so a test stops and starts a real server between two
// attempts without waiting on the wall clock.
package dependencytest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency"
)

// awaitLimit bounds a test's wait for the next retry, which comes after
// an attempt against a server that is away (a client's own timeouts).
const awaitLimit = 2 * time.Minute

// Clock is the clock of the retries a test makes with Retry.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	waited int
	waits  chan time.Duration
	ends   chan struct{}
}

// NewClock is a clock at an arbitrary instant.
func NewClock() *Clock {
	return &Clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), waits: make(chan time.Duration), ends: make(chan struct{})}
}

// Retry is a retry of calls to name for window, told health (nil: none),
// waiting on c.
func (c *Clock) Retry(name string, window time.Duration, health *dependency.Health) *dependency.Retry {
	return &dependency.Retry{Name: name, Window: window, Health: health, Now: c.Now, Sleep: c.Sleep}
}

// Now is the clock's time: the start plus every wait so far.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Waited is the number of waits begun.
func (c *Clock) Waited() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.waited
}

// Sleep reports the wait d (Await receives it), then lasts until End, and
// moves the clock by d; or returns ctx's error when it ends first.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.waited++
	c.mu.Unlock()
	select {
	case c.waits <- d:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-c.ends:
	case <-ctx.Done():
		return ctx.Err()
	}
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return nil
}

// Await returns the next wait a retry begins: an attempt failed
// transiently. It fails t when none comes.
func (c *Clock) Await(t testing.TB) time.Duration {
	t.Helper()
	select {
	case d := <-c.waits:
		return d
	case <-time.After(awaitLimit):
		t.Fatalf("no retry began within %s", awaitLimit)
		return 0
	}
}

// End ends the wait begun (Await returned it): the next attempt runs.
func (c *Clock) End(t testing.TB) {
	t.Helper()
	select {
	case c.ends <- struct{}{}:
	case <-time.After(awaitLimit):
		t.Fatalf("no retry was waiting")
	}
}
