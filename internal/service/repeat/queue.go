package repeat

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrStarted is returned by Queue.Start while the queue runs.
var ErrStarted = errors.New("already started")

// idleWait is how long a Queue sleeps with nothing queued; Submit wakes it
// at once, so this only bounds a lost wake-up.
const idleWait = time.Minute

// Queue runs jobs named by id one after another on a Loop: those an earlier
// process left unfinished, given to Start, then each one Submit adds. The
// censor job worker uses it (copy jobs have moved to package jobs, where
// the other queues follow); its jobs live in the store, so a job cut short
// by Stop runs again after the next Start.
type Queue struct {
	loop Loop

	mu      sync.Mutex
	started bool
	pending []string
}

// Start queues left ahead of anything submitted so far and runs run for each
// job until Stop. ctx bounds nothing but its values: the loop runs until Stop.
func (q *Queue) Start(ctx context.Context, left []string, run func(context.Context, string)) error {
	q.mu.Lock()
	if q.started {
		q.mu.Unlock()
		return ErrStarted
	}
	q.started = true
	q.pending = append(left, q.pending...)
	q.mu.Unlock()
	q.loop.Start(context.WithoutCancel(ctx), func(ctx context.Context) time.Duration {
		for _, id := range q.take() {
			if ctx.Err() != nil {
				return 0
			}
			run(ctx, id)
		}
		return idleWait
	})
	return nil
}

// Submit queues job id without blocking.
func (q *Queue) Submit(id string) {
	q.mu.Lock()
	q.pending = append(q.pending, id)
	q.mu.Unlock()
	q.loop.Wake()
}

// Stop cancels the job in progress, then always waits for the loop to
// return; the queue may be started again.
func (q *Queue) Stop() {
	q.loop.Stop()
	q.mu.Lock()
	q.started = false
	q.mu.Unlock()
}

// take empties the queue.
func (q *Queue) take() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	ids := q.pending
	q.pending = nil
	return ids
}
