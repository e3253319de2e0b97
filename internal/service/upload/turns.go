package upload

import (
	"sync"
	"sync/atomic"
)

// turns lets one request at a time work on an upload, and lets the newest
// request take over instead of waiting: it interrupts the one working (a
// stalled PUT would otherwise hold the upload until its client went away),
// as object stores let a new request on a resumable session replace an old
// one. Entries go away when nobody holds or waits, so the map does not grow
// with every upload ever seen.
type turns struct {
	mu sync.Mutex
	m  map[string]*turn
}

// turn is one upload's place in turns.
type turn struct {
	mu     sync.Mutex // held by the request working on the upload
	refs   int        // requests holding or waiting
	newest uint64     // the number of the last request to arrive
	holder *claim     // the request working; nil between requests
}

// claim is one request's turn on an upload.
type claim struct {
	interrupt func() // ends the request's body read; nil when it has none
	taken     atomic.Bool
}

// stop marks the claim taken over and interrupts its body read, once.
func (c *claim) stop() {
	if c.taken.CompareAndSwap(false, true) && c.interrupt != nil {
		c.interrupt()
	}
}

// takenOver reports whether a newer request took over from this one.
func (c *claim) takenOver() bool { return c.taken.Load() }

// take waits for key's turn and returns the claim and its release. It
// interrupts the request working on key, and a request that gets its turn
// while a newer one waits is taken over at once. interrupt (nil when the
// request reads no body) is how a newer request ends this one's body read.
func (t *turns) take(key string, interrupt func()) (*claim, func()) {
	t.mu.Lock()
	if t.m == nil {
		t.m = map[string]*turn{}
	}
	e, ok := t.m[key]
	if !ok {
		e = &turn{}
		t.m[key] = e
	}
	e.refs++
	e.newest++
	mine, working := e.newest, e.holder
	t.mu.Unlock()
	if working != nil {
		working.stop()
	}

	e.mu.Lock()
	c := &claim{interrupt: interrupt}
	t.mu.Lock()
	e.holder = c
	outrun := e.newest != mine
	t.mu.Unlock()
	if outrun {
		c.stop()
	}
	return c, func() {
		t.mu.Lock()
		e.holder = nil
		e.refs--
		if e.refs == 0 {
			delete(t.m, key)
		}
		t.mu.Unlock()
		e.mu.Unlock()
	}
}
