package client

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// limitWindow is the period the service counts requests over (a minute), plus
// a margin: the service sees arrival times, and a request that took longer on
// the wire than the one a minute before it must still land outside its window.
const limitWindow = time.Minute + time.Second

// sharedLimiter is the one rate limiter of a (BaseURL, APIKey) pair among the
// clients of one Shared. Terraform runs resources in parallel and the
// provider may build several clients; the service counts requests per key,
// so all of them must draw from the same window.
//
// It is a sliding-window log: a request is admitted when fewer than size
// requests were admitted in the last limitWindow. That keeps every sliding
// minute at or under the limit, like a token bucket with burst 1 would, but
// lets a burst through at once (eight projects created together do not wait
// two seconds each), which is what the service's "30 requests per minute"
// allows.
type sharedLimiter struct {
	mu     sync.Mutex
	size   int
	window time.Duration // 0: limitWindow; tests shorten it
	sent   []time.Time   // admission times within the window, oldest first
	until  time.Time     // no request before this instant (set from a 429 Retry-After)
	now    func() time.Time
	gate   windowGate // what the service's answers said of its window
}

// newSharedLimiter is a limiter admitting rpm requests per window.
func newSharedLimiter(rpm int) *sharedLimiter {
	return &sharedLimiter{size: rpm, now: time.Now}
}

// span is the window the limiter counts over.
func (l *sharedLimiter) span() time.Duration {
	if l.window > 0 {
		return l.window
	}
	return limitWindow
}

// rateLimited reports whether path is one the service rate-limits: its core
// project and clip endpoints. Other endpoints are not held back in advance;
// a 429 from any of them is still waited out and retried.
func rateLimited(path string) bool {
	return strings.HasPrefix(path, "/api/clip-projects") || strings.HasPrefix(path, "/api/exportable-clips")
}

// admit records a request at now and returns 0 if it may go, or how long to
// wait before asking again.
func (l *sharedLimiter) admit(now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.until.After(now) {
		return l.until.Sub(now)
	}
	cut := 0
	for cut < len(l.sent) && now.Sub(l.sent[cut]) >= l.span() {
		cut++
	}
	l.sent = l.sent[cut:]
	if len(l.sent) >= l.size {
		return l.sent[len(l.sent)-l.size].Add(l.span()).Sub(now)
	}
	l.sent = append(l.sent, now)
	return 0
}

// left is how many more requests the window admits at now.
func (l *sharedLimiter) left(now time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	used := 0
	for _, t := range l.sent {
		if now.Sub(t) < l.span() {
			used++
		}
	}
	return max(l.size-used, 0)
}

// wait blocks until a request may be sent or ctx ends: first the gate (what
// the service said of its window), then this process's own window. A wait
// that would outlast ctx's deadline fails at once, as the deadline it is. A
// request wait lets go must be reported to answered once it is answered.
func (l *sharedLimiter) wait(ctx context.Context) error {
	for {
		ok, changed, retry := l.gate.enter(l.now())
		if ok {
			break
		}
		if retry <= 0 {
			retry = l.span() // until a request in flight is answered
		}
		if err := sleepOrWake(ctx, retry, changed); err != nil {
			return err
		}
	}
	if err := l.waitWindow(ctx); err != nil {
		l.gate.leave()
		return err
	}
	return nil
}

// answered reports the answer to a request wait let go: status 0 when none
// came; retryAfter, remaining (< 0 when not said) and reset as the service
// said them. A plain 429 holds every client back for its Retry-After before
// the next probe may go, or for a whole window when the service says
// nothing of its window but in its 429s (windowGate).
func (l *sharedLimiter) answered(status int, retryAfter time.Duration, remaining int, reset time.Time) {
	if status == http.StatusTooManyRequests && retryAfter > 0 {
		l.pause(retryAfter)
	}
	// The service's clock may differ from ours: never wait longer than a
	// window for its next slot.
	if latest := l.now().Add(l.span()); reset.After(latest) {
		reset = latest
	}
	l.gate.answered(l.now(), status, remaining, reset, l.span())
}

// waitWindow blocks until this process's own window admits a request.
func (l *sharedLimiter) waitWindow(ctx context.Context) error {
	for {
		now := l.now()
		d := l.admit(now)
		if d <= 0 {
			return nil
		}
		if dl, ok := ctx.Deadline(); ok && now.Add(d).After(dl) {
			return fmt.Errorf("rate limit: the next request may go in %s, after the deadline: %w", d.Round(time.Millisecond), context.DeadlineExceeded)
		}
		if err := sleep(ctx, d); err != nil {
			return err
		}
	}
}

// pause holds every client of this limiter back for d, after the server said
// (Retry-After) that the key is over its rate.
func (l *sharedLimiter) pause(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t := l.now().Add(d); t.After(l.until) {
		l.until = t
	}
}
