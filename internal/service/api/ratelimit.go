package api

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// rateWindow is the span the per-key limit counts over: the spec's "per minute".
const rateWindow = time.Minute

// keyLimiter is a sliding-window log per API key: a request is allowed iff
// fewer than perMinute requests of that key were allowed in the last 60 s
// (the window (now-60s, now]). Unlike a token bucket it never lets more than
// perMinute through in any 60 s, and a client that keeps to the same rule
// (as the provider's client does) is never refused. Refused requests are not
// logged, so hammering does not push a key's window further out.
type keyLimiter struct {
	perMinute int
	now       func() time.Time // injected so tests move time without sleeping

	mu        sync.Mutex
	keys      map[string]*keyWindow
	lastSweep time.Time
}

// keyWindow holds the times of a key's allowed requests, oldest first, in a
// ring of perMinute slots: a full ring is exactly the refusing state, so no
// key ever holds more.
type keyWindow struct {
	times []time.Time // len perMinute
	start int         // index of the oldest
	n     int         // how many slots are in use
}

func newKeyLimiter(perMinute int) *keyLimiter {
	return &keyLimiter{perMinute: perMinute, now: time.Now, keys: map[string]*keyWindow{}}
}

// expire drops the entries that left the window by now.
func (k *keyWindow) expire(now time.Time) {
	for k.n > 0 && !now.Before(k.times[k.start].Add(rateWindow)) {
		k.start = (k.start + 1) % len(k.times)
		k.n--
	}
}

func (k *keyWindow) oldest() time.Time { return k.times[k.start] }

func (k *keyWindow) newest() time.Time { return k.times[(k.start+k.n-1)%len(k.times)] }

func (k *keyWindow) push(t time.Time) {
	k.times[(k.start+k.n)%len(k.times)] = t
	k.n++
}

// sweep forgets keys with nothing left in their window, at most once a
// window, so the map holds only keys active in the last minute or two.
func (l *keyLimiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < rateWindow {
		return
	}
	l.lastSweep = now
	for key, w := range l.keys {
		if w.n == 0 || !now.Before(w.newest().Add(rateWindow)) {
			delete(l.keys, key)
		}
	}
}

// admit decides one request of key at now and sets the rate-limit headers
// on every answer: X-RateLimit-Limit (requests per 60 s), X-RateLimit-Remaining
// (requests still allowed in the window after this one) and X-RateLimit-Reset
// (Unix seconds, rounded up, when the oldest request in the window leaves it).
// Refused, it also sets Retry-After: whole seconds, at least 1, until then.
func (l *keyLimiter) admit(w http.ResponseWriter, key string, now time.Time) bool {
	l.mu.Lock()
	l.sweep(now)
	kw, ok := l.keys[key]
	if !ok {
		kw = &keyWindow{times: make([]time.Time, l.perMinute)}
		l.keys[key] = kw
	}
	if kw.n > 0 && now.Before(kw.newest()) {
		// Concurrent requests read the clock before the lock; keep the log in order.
		now = kw.newest()
	}
	kw.expire(now)
	allowed := kw.n < l.perMinute
	if allowed {
		kw.push(now)
	}
	remaining := l.perMinute - kw.n
	resetAt := kw.oldest().Add(rateWindow) // kw.n >= 1 here: just pushed, or full
	l.mu.Unlock()

	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(l.perMinute))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(ceilUnix(resetAt), 10))
	if !allowed {
		wait := resetAt.Sub(now)
		secs := int64(wait / time.Second)
		if wait%time.Second != 0 {
			secs++
		}
		h.Set("Retry-After", strconv.FormatInt(max(1, secs), 10))
	}
	return allowed
}

// ceilUnix is t in Unix seconds, rounded up: the window has not moved on
// before that second.
func ceilUnix(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() > 0 {
		s++
	}
	return s
}
