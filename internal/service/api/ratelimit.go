package api

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// keyLimiter is a token bucket per API key: perMinute/60 tokens a second,
// holding at most perMinute, so a quiet key may burst a full minute's worth.
// Buckets live for the process; keys are few (only authenticated keys get one).
type keyLimiter struct {
	perMinute int

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

func newKeyLimiter(perMinute int) *keyLimiter {
	return &keyLimiter{perMinute: perMinute, buckets: map[string]*rate.Limiter{}}
}

func (l *keyLimiter) bucket(key string) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok {
		b = rate.NewLimiter(rate.Limit(float64(l.perMinute)/60), l.perMinute)
		l.buckets[key] = b
	}
	return b
}

// admit takes a token for key and sets the rate-limit headers on every
// answer: X-RateLimit-Limit (requests per minute), X-RateLimit-Remaining
// (whole tokens left) and X-RateLimit-Reset (Unix seconds when the bucket is
// full again, as GitHub's X-RateLimit-Reset). Refused, it also sets
// Retry-After: whole seconds, at least 1, until a token is available.
func (l *keyLimiter) admit(w http.ResponseWriter, key string, now time.Time) bool {
	b := l.bucket(key)
	res := b.ReserveN(now, 1)
	delay := res.DelayFrom(now)
	ok := res.OK() && delay == 0
	if !ok {
		// Give the token back: a refused request must not push the next one further out.
		res.CancelAt(now)
	}
	tokens := b.TokensAt(now)
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(l.perMinute))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(0, int(math.Floor(tokens)))))
	full := (float64(l.perMinute) - tokens) / float64(b.Limit()) // seconds until full
	resetAt := now.Add(time.Duration(full * float64(time.Second)))
	reset := resetAt.Unix()
	if resetAt.Nanosecond() > 0 {
		reset++ // round up: the bucket is not full before that second
	}
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
	if !ok {
		h.Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(delay.Seconds())))))
	}
	return ok
}
