package pipeline

import (
	"sync"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/backoff"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/repeat"
)

// failing spaces out the loop's writes of one project that keep failing
// (the watchdog's requeue, a due retry): each is tried again after the
// loops' backoff on a store failure (repeat.FailureBase doubling to
// repeat.FailureMax), not on every scan, so a project the database refuses
// costs a log line per backoff, not one every PollInterval for ever; the
// other projects are not held back by it.
type failing struct {
	mu sync.Mutex
	m  map[string]writeFailures
}

type writeFailures struct {
	n    int       // failures in a row
	next time.Time // no attempt before
}

// due reports whether project id may be tried at now.
func (f *failing) due(id string, now time.Time) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !now.Before(f.m[id].next)
}

// failed records a failed attempt at now and returns the failures in a
// row and the wait before the next attempt.
func (f *failing) failed(id string, now time.Time) (int, time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]writeFailures{}
	}
	n := f.m[id].n + 1
	wait := backoff.Exponential(n, repeat.FailureBase, repeat.FailureMax)
	f.m[id] = writeFailures{n: n, next: now.Add(wait)}
	return n, wait
}

// keep forgets every project but ids (those that succeeded, or are no
// longer listed).
func (f *failing) keep(ids map[string]bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id := range f.m {
		if !ids[id] {
			delete(f.m, id)
		}
	}
}

// attempt runs write for each of ids that is due, recording failures and
// forgetting successes; log reports each failure with its count and wait.
func (f *failing) attempt(ids []string, now time.Time, write func(id string) error, log func(id string, err error, n int, wait time.Duration)) {
	still := map[string]bool{}
	for _, id := range ids {
		if !f.due(id, now) {
			still[id] = true
			continue
		}
		if err := write(id); err != nil {
			n, wait := f.failed(id, now)
			log(id, err, n, wait)
			still[id] = true
		}
	}
	f.keep(still)
}
