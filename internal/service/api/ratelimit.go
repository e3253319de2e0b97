package api

import (
	"context"
	"log/slog"
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
// logged, so hammering does not push a key's window further out. With saved
// set, every key's window is written there and read back when the key is
// first seen, so a restart does not hand out the same minute's budget again.
type keyLimiter struct {
	perMinute int
	now       func() time.Time // injected so tests move time without sleeping
	saved     windowStore      // nil: windows live in memory only
	log       *slog.Logger

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

// windowStore keeps the keys' windows across restarts (the store).
type windowStore interface {
	RateWindow(ctx context.Context, key string) ([]time.Time, error)
	SaveRateWindow(ctx context.Context, key string, times []time.Time) error
}

// postWindowPrefix names the posting endpoints' windows among the saved ones.
const postWindowPrefix = "post:"

// prefixedWindows keeps a second limiter's windows in the same store under
// prefix+key, apart from the first's.
type prefixedWindows struct {
	windowStore
	prefix string
}

func (p prefixedWindows) RateWindow(ctx context.Context, key string) ([]time.Time, error) {
	return p.windowStore.RateWindow(ctx, p.prefix+key)
}

func (p prefixedWindows) SaveRateWindow(ctx context.Context, key string, times []time.Time) error {
	return p.windowStore.SaveRateWindow(ctx, p.prefix+key, times)
}

func newKeyLimiter(perMinute int) *keyLimiter {
	return &keyLimiter{perMinute: perMinute, now: time.Now, keys: map[string]*keyWindow{}, log: slog.New(slog.DiscardHandler)}
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

// list is the window's times, oldest first.
func (k *keyWindow) list() []time.Time {
	out := make([]time.Time, k.n)
	for i := range out {
		out[i] = k.times[(k.start+i)%len(k.times)]
	}
	return out
}

// window is key's window, made (and filled from the saved one) when the
// key is not tracked. Called with l.mu held; the saved window is read with
// the lock released, so one key's store read never holds up the others.
func (l *keyLimiter) window(ctx context.Context, key string) *keyWindow {
	if kw, ok := l.keys[key]; ok {
		return kw
	}
	l.mu.Unlock()
	times := l.savedTimes(ctx, key)
	l.mu.Lock()
	if kw, ok := l.keys[key]; ok { // another request of the key made it meanwhile
		return kw
	}
	kw := &keyWindow{times: make([]time.Time, l.perMinute)}
	// The newest perMinute, in order: a lower limit after a restart keeps the latest.
	for _, t := range times[max(0, len(times)-l.perMinute):] {
		if kw.n == 0 || !t.Before(kw.newest()) {
			kw.push(t)
		}
	}
	l.keys[key] = kw
	return kw
}

// savedTimes is key's saved window. One that cannot be read counts as
// empty: the limit is a courtesy to the server, not worth refusing requests over.
func (l *keyLimiter) savedTimes(ctx context.Context, key string) []time.Time {
	if l.saved == nil {
		return nil
	}
	times, err := l.saved.RateWindow(ctx, key)
	if err != nil {
		l.log.Warn("rate limit: saved window unreadable; starting the key's window empty", "err", err)
	}
	return times
}

// save writes key's window after it changed, outside l.mu. Two saves of one
// key may land out of order; the saved window then lacks a request or two,
// which a restart at most allows again.
func (l *keyLimiter) save(ctx context.Context, key string, times []time.Time) {
	if l.saved == nil || times == nil {
		return
	}
	if err := l.saved.SaveRateWindow(ctx, key, times); err != nil {
		l.log.Warn("rate limit: window not saved; a restart may allow this minute's requests again", "err", err)
	}
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
func (l *keyLimiter) admit(ctx context.Context, w http.ResponseWriter, key string, now time.Time) bool {
	l.mu.Lock()
	l.sweep(now)
	kw := l.window(ctx, key)
	if kw.n > 0 && now.Before(kw.newest()) {
		// Concurrent requests read the clock before the lock; keep the log in order.
		now = kw.newest()
	}
	kw.expire(now)
	allowed := kw.n < l.perMinute
	var changed []time.Time
	if allowed {
		kw.push(now)
		changed = kw.list()
	}
	remaining := l.perMinute - kw.n
	resetAt := kw.oldest().Add(rateWindow) // kw.n >= 1 here: just pushed, or full
	l.mu.Unlock()
	l.save(ctx, key, changed)

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
