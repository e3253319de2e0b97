package client

import (
	"sync"
	"time"
)

// windowGate is what a process knows of the service's rate window beyond its
// own requests: the window may hold requests of other processes (the apply
// before this plan, another run with the key), which the sliding-window log
// of sharedLimiter cannot see. Sent together into a full window, every
// request in flight (Terraform reads ten resources at once) would be refused
// and sent again. So, until a rate-limited request is answered without a 429,
// and again after a 429, one request goes at a time (a probe): a full window
// costs one refused request, not one per request in flight. An answer's
// X-RateLimit-Remaining, when the service sends it, says how many more may go
// at once; none left holds the next request until X-RateLimit-Reset.
//
// A service may send those headers only with its 429s (the spec names them
// there alone). Its other answers then say nothing of the window, so one
// request goes at a time for as long as that lasts, and a 429 holds every
// request but one probe for a whole window: its Retry-After frees one slot,
// not the window, and requests sent at once after it would be refused again.
// The probe goes after the Retry-After (the limiter's pause); an answer that
// says the window ends the hold, one that does not leaves it. A window after
// the refusal the service's window holds only requests sent since, which
// this process's own log counts (sharedLimiter), so from then on the gate is
// open and the log alone paces them.
//
// The zero value is a gate that knows nothing yet.
type windowGate struct {
	mu        sync.Mutex
	open      bool          // answered without a 429 since the start or the last 429
	credit    int           // with open: requests the service said may still go (>= 0), or -1: it did not say
	inflight  int           // requests admitted and not answered
	notBefore time.Time     // none left: no request before the window's next slot frees
	told      bool          // an answer other than a 429 carried X-RateLimit-Remaining
	ownsAt    time.Time     // not told: after a 429, when the window holds only this process's requests
	holdProbe bool          // before ownsAt: one probe may go
	changed   chan struct{} // closed when a request is answered or leaves
}

// enter admits a request at now (ok), or says what to wait for before asking
// again: changed closes when a request in flight is answered, and retry > 0
// is when the window frees a slot.
func (g *windowGate) enter(now time.Time) (ok bool, changed <-chan struct{}, retry time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if now.Before(g.notBefore) {
		return false, g.changedLocked(), g.notBefore.Sub(now)
	}
	if !g.ownsAt.IsZero() {
		if now.Before(g.ownsAt) {
			if !g.holdProbe || g.inflight > 0 {
				return false, g.changedLocked(), g.ownsAt.Sub(now)
			}
			g.holdProbe = false
			g.inflight++
			return true, nil, 0
		}
		g.ownsAt, g.open, g.credit = time.Time{}, true, -1
	}
	if !g.notBefore.IsZero() {
		// A slot freed; how many is not known: a probe asks.
		g.notBefore, g.open = time.Time{}, false
	}
	switch {
	case g.open && g.credit != 0:
		if g.credit > 0 {
			g.credit--
		}
	case g.inflight > 0:
		return false, g.changedLocked(), 0
	default:
		// The probe: nothing else is in flight, and its answer alone
		// sets what may go next.
		g.open = false
	}
	g.inflight++
	return true, nil, 0
}

// answered learns from the answer, at now, to an admitted request: its
// status (a plain 429 closes the gate, for a whole window from now when the
// service has not said its window otherwise; 0, no answer, says nothing of
// the window) and what the service said is left (remaining < 0: not said)
// until reset. An answer that says nothing leaves the gate as it is.
// Answers arrive in any order, so while the gate is open they only lower
// what may go; the probe's answer sets it.
func (g *windowGate) answered(now time.Time, status, remaining int, reset time.Time, window time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case status == 429:
		g.open, g.credit = false, 0
		if !g.told {
			g.ownsAt, g.holdProbe = later(g.ownsAt, now.Add(window)), true
		}
	case status == 0:
		// The probe of a hold got no answer: another may ask.
		g.holdProbe = !g.ownsAt.IsZero()
	case remaining < 0:
	default:
		g.told, g.ownsAt, g.holdProbe = true, time.Time{}, false
		// Requests still in flight were admitted after the answered one
		// or counted in remaining already; taking them off again errs on
		// the side of waiting.
		left := max(remaining-max(g.inflight-1, 0), 0)
		if g.open && g.credit >= 0 {
			left = min(left, g.credit)
		}
		g.open, g.credit = true, left
		if remaining == 0 && reset.After(g.notBefore) {
			g.notBefore = reset
		}
	}
	g.leaveLocked()
}

// leave gives back an admission whose request was not sent.
func (g *windowGate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.leaveLocked()
}

func (g *windowGate) leaveLocked() {
	g.inflight = max(g.inflight-1, 0)
	if g.changed != nil {
		close(g.changed)
		g.changed = nil
	}
}

func (g *windowGate) changedLocked() <-chan struct{} {
	if g.changed == nil {
		g.changed = make(chan struct{})
	}
	return g.changed
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
