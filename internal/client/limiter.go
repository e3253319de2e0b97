package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// sharedLimiter is the one rate limiter of a (BaseURL, APIKey) pair in this
// process. Terraform runs resources in parallel and the provider may build
// several clients; the service counts requests per key, so all of them must
// draw from the same bucket.
type sharedLimiter struct {
	lim *rate.Limiter

	mu    sync.Mutex
	until time.Time // no request before this instant (set from a 429 Retry-After)
}

var (
	limitersMu sync.Mutex
	limiters   = map[string]*sharedLimiter{}
)

// limiterFor returns the process-wide limiter of base+key, creating it on first
// use. The key is hashed so the registry does not keep API keys as map keys. If
// a later client asks for a lower rate, the shared limiter slows down to it.
func limiterFor(base, apiKey string, rpm int) *sharedLimiter {
	sum := sha256.Sum256([]byte(base + "\x00" + apiKey))
	k := hex.EncodeToString(sum[:])
	limitersMu.Lock()
	defer limitersMu.Unlock()
	want := limitFor(rpm)
	if l, ok := limiters[k]; ok {
		if want < l.lim.Limit() {
			l.lim.SetLimit(want)
		}
		return l
	}
	l := &sharedLimiter{lim: rate.NewLimiter(want, 1)}
	limiters[k] = l
	return l
}

// limitFor turns requests-per-minute into a token rate. With burst 1 the bucket
// holds at most one token, so in any window of 60 s at most 1 + 60*r requests
// pass: the token present at the window's start plus those refilled during it.
// r = (rpm-1)/60 per second makes that exactly rpm, in every sliding window,
// not just in aligned minutes. For rpm == 1 the rate is one per 61 s, so two
// requests are never inside the same 60 s.
func limitFor(rpm int) rate.Limit {
	if rpm <= 1 {
		return rate.Every(61 * time.Second)
	}
	return rate.Limit(float64(rpm-1) / 60)
}

// wait blocks until a request may be sent or ctx ends.
func (l *sharedLimiter) wait(ctx context.Context) error {
	l.mu.Lock()
	until := l.until
	l.mu.Unlock()
	if d := time.Until(until); d > 0 {
		if err := sleep(ctx, d); err != nil {
			return err
		}
	}
	if err := l.lim.Wait(ctx); err != nil {
		if ctx.Err() == nil {
			// rate refuses early when the wait would outlast the deadline;
			// report it as the deadline it is.
			return fmt.Errorf("%v: %w", err, context.DeadlineExceeded)
		}
		return err
	}
	return nil
}

// pause holds every client of this limiter back for d, after the server said
// (Retry-After) that the key is over its rate.
func (l *sharedLimiter) pause(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t := time.Now().Add(d); t.After(l.until) {
		l.until = t
	}
}
