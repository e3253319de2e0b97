package client

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// DefaultMaxConcurrentProjects is the service's cap on projects in flight per
// organization on the Pro Beta and Max plans.
const DefaultMaxConcurrentProjects = 4

// slotPool is this process's picture of an organization's concurrent-project
// cap: one slot per project it created and has not yet seen end, plus one per
// create on the wire. A create waits here for a free slot instead of sending
// a request the service would refuse with 429 X-Cap-Reason: concurrent.
//
// The pool cannot see projects of other processes. When the service refuses
// a create anyway, the pool learns that the cap left to it is the number of
// its own projects in flight (refused), and the refused create waits for one
// of them to end (or its backoff) before it is sent again.
type slotPool struct {
	mu    sync.Mutex
	limit int                 // slots this process may use: configured, or learned from a refusal
	plan  int                 // the configured cap, which a learned limit never exceeds
	held  map[string]*holding // projects created here and not seen to end, by id
	// others are projects of other processes seen in flight here: seeing
	// one end frees a slot of the service's cap too.
	others  map[string]bool
	pending int // creates that hold a slot but have no project id yet
	seq     int // holdings ever bound, to order them
	waiting int // creates waiting in acquireSlot now
	// changed is closed and replaced whenever a slot frees, waking every
	// create waiting in acquire to look again.
	changed chan struct{}
	// refusedWaiters are creates the service refused, oldest first. One is
	// woken per project seen to end, so a freed slot does not send every
	// refused create at the service only for all but one to be refused again.
	refusedWaiters []chan struct{}
}

// holding is one project that holds a slot.
type holding struct {
	watchers int // WaitForProject calls polling it now; 0 means nobody will see it end unless asked
	order    int // creation order, so the oldest unwatched project is looked at first
}

func newSlotPool(limit int) *slotPool {
	limit = max(limit, 1)
	return &slotPool{limit: limit, plan: limit, held: map[string]*holding{}, others: map[string]bool{}, changed: make(chan struct{})}
}

// setLimit lowers the pool's limit to n (a client configured for a smaller
// plan); like the rate limiter, the lower value wins within a process.
func (s *slotPool) setLimit(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.plan = max(min(s.plan, n), 1)
	s.limit = min(s.limit, s.plan)
}

// slot is a slot taken by one create; exactly one of hold and free ends it.
type slot struct {
	pool *slotPool
	done bool
}

// tryAcquire takes a slot when one is free. Otherwise it returns the channel
// closed at the next change and the oldest project holding a slot that no
// wait in this process is polling ("" when every one is watched).
func (s *slotPool) tryAcquire() (*slot, <-chan struct{}, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending+len(s.held) < s.limit {
		s.pending++
		return &slot{pool: s}, nil, ""
	}
	return nil, s.changed, s.oldestUnwatched()
}

// waiter counts a create waiting in acquireSlot until done is called.
func (s *slotPool) waiter() (done func()) {
	s.mu.Lock()
	s.waiting++
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.waiting--
		s.mu.Unlock()
	}
}

// callsAhead is how many calls to the rate-limited routes this process's
// projects may still need: three for each, whether it waits for a slot (a
// create, the poll that finds it done, a clip listing) or is in flight or
// on the wire (that poll, the listing and room for one poll that finds it
// running). Without that room the last wave of 8 projects, after the
// scout's looks, polled at its dues with a call or two to spare, and one
// or two early polls made the 31st call, which waited a minute for the
// window.
func (s *slotPool) callsAhead() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return 3 * (s.waiting + s.pending + len(s.held))
}

func (s *slotPool) oldestUnwatched() string {
	id, order := "", -1
	for k, h := range s.held {
		if h.watchers == 0 && (order < 0 || h.order < order) {
			id, order = k, h.order
		}
	}
	return id
}

// hold binds the slot to the project the service accepted.
func (sl *slot) hold(id string) {
	sl.end(func(s *slotPool) {
		if _, dup := s.held[id]; dup {
			s.wakeLocked() // the same id twice: one slot is enough
			return
		}
		s.seq++
		s.held[id] = &holding{order: s.seq}
	})
}

// free gives the slot back without a project: the create failed.
func (sl *slot) free() {
	sl.end(func(s *slotPool) { s.wakeLocked() })
}

// end turns the pending slot into what then says, once.
func (sl *slot) end(then func(s *slotPool)) {
	s := sl.pool
	s.mu.Lock()
	defer s.mu.Unlock()
	if sl.done {
		return
	}
	sl.done = true
	s.pending--
	then(s)
}

// inFlight records a project seen in flight. One this process did not
// create holds a slot of the service's cap all the same.
func (s *slotPool) inFlight(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.held[id]; !ok {
		s.others[id] = true
	}
}

// release frees the slot of project id, seen to end (terminal stage, deleted,
// gone). The end of another process's project seen in flight here gives back
// a slot a refusal took from the limit; a project never seen in flight (a
// COMPLETE one read in a refresh) changes nothing.
func (s *slotPool) release(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.others[id]:
		delete(s.others, id)
		s.limit = min(s.limit+1, s.plan)
	case s.held[id] != nil:
		delete(s.held, id)
	default:
		return
	}
	if len(s.refusedWaiters) > 0 {
		close(s.refusedWaiters[0])
		s.refusedWaiters = s.refusedWaiters[1:]
	}
	s.wakeLocked()
}

func (s *slotPool) wakeLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// refused records a create the service refused for the concurrent cap while
// this process had running projects in flight: the service's cap, as far as
// this process may use it, is that number (at least one). It returns the
// channel closed when one of those projects is seen to end, and cancel, to
// call when the wait ends either way.
func (s *slotPool) refused() (wake <-chan struct{}, cancel func()) {
	ch := make(chan struct{})
	s.mu.Lock()
	s.limit = max(min(s.limit, len(s.held)), 1)
	s.refusedWaiters = append(s.refusedWaiters, ch)
	s.mu.Unlock()
	return ch, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, w := range s.refusedWaiters {
			if w == ch {
				s.refusedWaiters = append(s.refusedWaiters[:i], s.refusedWaiters[i+1:]...)
				return
			}
		}
	}
}

// watch marks project id as polled by a wait of this process until the
// returned function is called; a create waiting for a slot need not ask
// about a watched project itself.
func (s *slotPool) watch(id string) (unwatch func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.held[id]
	if !ok {
		return func() {}
	}
	h.watchers++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if h.watchers > 0 {
			h.watchers--
		}
		if h.watchers == 0 {
			s.wakeLocked() // a waiting create may now have to ask about it
		}
	}
}

// acquireSlot waits for a free concurrent-project slot of the client's
// organization, or for ctx to end. When every slot is held by projects no
// wait of this process is polling (created with wait_for_completion = false,
// say), it asks the service about the oldest of them every capBase, since
// otherwise nobody would see it end.
func (c *Client) acquireSlot(ctx context.Context) (*slot, error) {
	if sl, _, _ := c.slots.tryAcquire(); sl != nil {
		return sl, nil
	}
	defer c.slots.waiter()()
	for {
		sl, changed, unwatched := c.slots.tryAcquire()
		if sl != nil {
			return sl, nil
		}
		var (
			timer *time.Timer
			probe <-chan time.Time
		)
		if unwatched != "" {
			timer = time.NewTimer(c.policy.capBase)
			probe = timer.C
		}
		select {
		case <-ctx.Done():
			stopTimer(timer)
			return nil, ctx.Err()
		case <-changed:
			stopTimer(timer)
		case <-probe:
			c.probeUnwatched(ctx)
		}
	}
}

// probeUnwatched asks the service about the oldest project holding a slot
// that no wait polls now. It is looked up again when the probe is due: a wait
// that started polling the one seen when the probe was set will see it end
// itself, and a read here would be a call for nothing. GetProject releases
// the slot when the project has ended; an error leaves the create waiting.
func (c *Client) probeUnwatched(ctx context.Context) {
	c.slots.mu.Lock()
	id := c.slots.oldestUnwatched()
	c.slots.mu.Unlock()
	if id == "" {
		return
	}
	if _, err := c.GetProject(ctx, id); err != nil && ctx.Err() == nil {
		c.debug(ctx, "clipper could not read a project holding a concurrent slot", map[string]any{"project_id": id, "error": err})
	}
}

func stopTimer(t *time.Timer) {
	if t != nil {
		t.Stop()
	}
}

// slotsDescription names the cap a create waits under, for errors.
func (c *Client) slotsDescription() string {
	c.slots.mu.Lock()
	defer c.slots.mu.Unlock()
	return fmt.Sprintf("%d concurrent-project slots (all held by projects still in flight)", c.slots.limit)
}

// MaxConcurrentProjects is the concurrent-project cap creates of this
// process wait under: the configured one, or lower once a refusal taught
// that other processes' projects hold some of it.
func (c *Client) MaxConcurrentProjects() int {
	c.slots.mu.Lock()
	defer c.slots.mu.Unlock()
	return c.slots.limit
}
