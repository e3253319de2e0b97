package api

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
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
// With shared set (PostgreSQL, where several API nodes serve one database)
// the window lives in the database alone and each check takes it in one
// transaction (admitShared), so the nodes together allow perMinute.
type keyLimiter struct {
	perMinute int
	now       func() time.Time // injected so tests move time without sleeping
	saved     windowStore      // nil: windows live in memory only
	shared    sharedWindows    // non-nil: windows are decided in the database
	log       *slog.Logger

	mu        sync.Mutex
	keys      map[string]*keyWindow
	lastSweep time.Time
	// full holds, with shared, the keys whose window the database found
	// full, until its oldest request leaves it: other nodes only add to a
	// window, so until then it stays full and a refusal needs no
	// transaction (a key hammered past its limit costs the database nothing).
	full map[string]time.Time
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

// sharedWindows decides a key's window in one database transaction
// (store.TakeRateWindow).
type sharedWindows interface {
	TakeRateWindow(ctx context.Context, key string, take func(times []time.Time) ([]time.Time, bool)) error
}

// rateWindows is what the store offers both kinds of limiter.
type rateWindows interface {
	windowStore
	sharedWindows
}

// postWindowPrefix names the posting endpoints' windows among the saved ones.
const postWindowPrefix = "post:"

// prefixedWindows keeps a second limiter's windows in the same store under
// prefix+key, apart from the first's.
type prefixedWindows struct {
	rateWindows
	prefix string
}

func (p prefixedWindows) RateWindow(ctx context.Context, key string) ([]time.Time, error) {
	return p.rateWindows.RateWindow(ctx, p.prefix+key)
}

func (p prefixedWindows) SaveRateWindow(ctx context.Context, key string, times []time.Time) error {
	return p.rateWindows.SaveRateWindow(ctx, p.prefix+key, times)
}

func (p prefixedWindows) TakeRateWindow(ctx context.Context, key string, take func([]time.Time) ([]time.Time, bool)) error {
	return p.rateWindows.TakeRateWindow(ctx, p.prefix+key, take)
}

func newKeyLimiter(perMinute int) *keyLimiter {
	return &keyLimiter{perMinute: perMinute, now: time.Now, keys: map[string]*keyWindow{}, full: map[string]time.Time{},
		log: slog.New(slog.DiscardHandler)}
}

// newLimiters makes the per-key limiter of the core endpoints and that of
// the posting ones (its windows saved under postWindowPrefix). On SQLite
// (one process) windows live in memory and are saved for a restart; on
// PostgreSQL, which several API nodes may share, they are decided in the
// database, so --rate-limit and --post-rate-limit hold across the nodes.
func newLimiters(st Store, rate, postRate int, now func() time.Time, log *slog.Logger) (core, post *keyLimiter) {
	core, post = newKeyLimiter(rate), newKeyLimiter(postRate)
	if now != nil {
		core.now, post.now = now, now
	}
	if log != nil {
		core.log, post.log = log, log
	}
	if st == nil { // handler tests without a store: memory only
		return core, post
	}
	var windows rateWindows = st
	postWindows := prefixedWindows{windows, postWindowPrefix}
	if st.SharedByProcesses() {
		core.shared, post.shared = windows, postWindows
	} else {
		core.saved, post.saved = windows, postWindows
	}
	return core, post
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

// verdict is the decision on one request and what its headers say.
type verdict struct {
	allowed   bool
	remaining int       // requests still allowed in the window after this one
	resetAt   time.Time // when the oldest request in the window leaves it
	now       time.Time // the request's time, never before the window's newest
}

// admit decides one request of key at now and sets the rate-limit headers
// on every answer: X-RateLimit-Limit (requests per 60 s), X-RateLimit-Remaining
// (requests still allowed in the window after this one) and X-RateLimit-Reset
// (Unix seconds, rounded up, when the oldest request in the window leaves it).
// Refused, it also sets Retry-After: whole seconds, at least 1, until then.
func (l *keyLimiter) admit(ctx context.Context, w http.ResponseWriter, key string, now time.Time) bool {
	var v verdict
	if l.shared != nil {
		v = l.admitShared(ctx, key, now)
	} else {
		v = l.admitLocal(ctx, key, now)
	}
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(l.perMinute))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(v.remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(ceilUnix(v.resetAt), 10))
	if !v.allowed {
		wait := v.resetAt.Sub(v.now)
		secs := int64(wait / time.Second)
		if wait%time.Second != 0 {
			secs++
		}
		h.Set("Retry-After", strconv.FormatInt(max(1, secs), 10))
	}
	return v.allowed
}

// admitLocal decides on the window kept in memory (saved, if set, after
// each allowed request).
func (l *keyLimiter) admitLocal(ctx context.Context, key string, now time.Time) verdict {
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
	v := verdict{allowed: allowed, remaining: l.perMinute - kw.n, now: now,
		resetAt: kw.oldest().Add(rateWindow)} // kw.n >= 1 here: just pushed, or full
	l.mu.Unlock()
	l.save(ctx, key, changed)
	return v
}

// admitShared decides in the database, in one transaction holding the
// key's window, so requests of one key on every node are decided one after
// the other. A key the database found full is refused from memory until
// its window moves on. When the database cannot decide, the request is
// decided on this process's memory alone (logged): the limit is a courtesy
// to the server, not worth refusing requests over.
func (l *keyLimiter) admitShared(ctx context.Context, key string, now time.Time) verdict {
	l.mu.Lock()
	if now.Sub(l.lastSweep) >= rateWindow {
		l.lastSweep = now
		for k, until := range l.full {
			if !now.Before(until) {
				delete(l.full, k)
			}
		}
	}
	until, full := l.full[key]
	l.mu.Unlock()
	if full && now.Before(until) {
		return verdict{remaining: 0, resetAt: until, now: now}
	}
	var v verdict
	err := l.shared.TakeRateWindow(ctx, key, func(times []time.Time) ([]time.Time, bool) {
		var next []time.Time
		next, v = slide(times, now, l.perMinute)
		return next, v.allowed
	})
	if err != nil {
		l.log.Warn("rate limit: the database could not decide; this request is counted by this process alone", "err", err)
		return l.admitLocal(ctx, key, now)
	}
	if !v.allowed {
		l.mu.Lock()
		l.full[key] = v.resetAt
		l.mu.Unlock()
	}
	return v
}

// slide is admitLocal's rule on a window read from the database: times
// (oldest first) lose those that left the window by now, and now is taken
// when fewer than limit remain. next is the window to save when allowed.
func slide(times []time.Time, now time.Time, limit int) (next []time.Time, v verdict) {
	if n := len(times); n > 0 && now.Before(times[n-1]) {
		// Another node's clock, or a request that read the clock earlier, went first; keep the log in order.
		now = times[n-1]
	}
	gone := 0
	for gone < len(times) && !now.Before(times[gone].Add(rateWindow)) {
		gone++
	}
	live := times[gone:]
	// The newest limit: a lower limit (another node's, or after a restart) keeps the latest.
	live = live[max(0, len(live)-limit):]
	v = verdict{allowed: len(live) < limit, now: now}
	if v.allowed {
		live = append(slices.Clip(live), now)
	}
	v.remaining = limit - len(live)
	v.resetAt = live[0].Add(rateWindow) // len(live) >= 1: just taken, or full
	return live, v
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
