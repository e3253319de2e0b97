package client

import (
	"net/http"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// outcome is what one attempt of an API call came back with, as far as the
// retry policy cares.
type outcome struct {
	idempotent bool  // the method may be sent again after any failure
	status     int   // status code; 0 when no status line arrived
	err        error // transport error: no answer, or its body was cut off after the status line
	ctxEnded   bool  // err is the caller's context ending, not the network's fault
	retryAfter time.Duration
	capReason  string // X-Cap-Reason of a 429
	monthlyCap bool   // the 403 is API_MONTHLY_CAP_REACHED
	// rideOut: the caller's context has a deadline and asked to ride out
	// outages (RideOutOutages), so failures safe to repeat are retried
	// until it ends rather than p.maxAttempts times.
	rideOut bool
}

// tally counts the failed attempts of one call by kind: the policy bounds
// network errors and 5xx, plain 429s and concurrent-cap refusals separately.
type tally struct {
	failures    int // network errors and 5xx
	limited     int // plain (rate) 429s
	capRefusals int // 429s with X-Cap-Reason: concurrent
}

// action is what the call does after an attempt.
type action int

const (
	actDone      action = iota // a 2xx: decode the answer
	actFail                    // return the attempt's error
	actBackoff                 // sleep the wait, then send again
	actPause                   // hold back every client of the key for the wait, then go through the limiter again
	actAwaitSlot               // sleep the wait or until a project of the key finishes, then send again
)

// delay is how long to wait before the next attempt: the jittered backoff of
// retry n between lo and hi (none when n is 0), and at least floor. The jitter
// is drawn only when the wait is taken, so decide stays deterministic.
type delay struct {
	n      int
	lo, hi time.Duration
	floor  time.Duration
}

func (d delay) duration() time.Duration {
	var b time.Duration
	if d.n > 0 {
		b = backoff(d.n, d.lo, d.hi)
	}
	return max(b, d.floor)
}

// decision is decide's answer: what to do, how long to wait before the next
// attempt, and why (for logs and tests).
type decision struct {
	act    action
	wait   delay
	reason string
}

// decide is the retry policy of Client.call as a pure function: given the
// outcome of an attempt and the failures counted before it, it returns what
// to do and the counts including this attempt. The rules, in order:
//   - a transport error ends the call when ctx ended; otherwise it is sent
//     again, up to p.maxAttempts failures (or until ctx ends, when it rides
//     out outages), only if the server cannot have acted on a non-idempotent
//     request (see mayResend);
//   - a 2xx is done;
//   - a 403 monthly cap is never retried: access resumes only next month;
//   - a 429 with X-Cap-Reason: concurrent is retried without bound (until ctx
//     ends) after a capBase..capMax backoff, at least Retry-After;
//   - a plain 429 is retried up to p.max429 times, even for a POST (the
//     request was refused): after Retry-After for the whole key, or a backoff;
//   - a 5xx is retried for idempotent methods, up to p.maxAttempts failures
//     (or until ctx ends, when it rides out outages);
//   - anything else (4xx, a POST's 5xx, an unfollowed 3xx) is returned.
func decide(p retryPolicy, t tally, o outcome) (decision, tally) {
	switch {
	case o.err != nil:
		return decideTransport(p, t, o)
	case o.status >= 200 && o.status < 300:
		return decision{act: actDone, reason: "success"}, t
	case o.status == http.StatusForbidden && o.monthlyCap:
		return fail("monthly API cap reached: never retried"), t
	case o.status == http.StatusTooManyRequests:
		return decide429(p, t, o)
	case o.status >= 500 && !o.idempotent:
		return fail("server error on a request that is not idempotent: the server may have acted"), t
	case o.status >= 500:
		t.failures++
		if t.failures >= p.maxAttempts && !o.rideOut {
			return fail("server error: attempts used up"), t
		}
		return backoffBy(t.failures, p.base, p.max, "server error"), t
	}
	return fail("status not retried"), t
}

// decideTransport decides after an attempt that got no whole answer.
func decideTransport(p retryPolicy, t tally, o outcome) (decision, tally) {
	if o.ctxEnded {
		return fail("the caller's context ended"), t
	}
	t.failures++
	if !mayResend(o.idempotent, o.status != 0, o.err) {
		return fail("network error after the server may have acted on a request that is not idempotent"), t
	}
	if t.failures >= p.maxAttempts && !o.rideOut {
		return fail("network error: attempts used up"), t
	}
	return backoffBy(t.failures, p.base, p.max, "network error"), t
}

// decide429 decides after a 429: a concurrent-cap refusal waits for a slot,
// a rate refusal for the key's window.
func decide429(p retryPolicy, t tally, o outcome) (decision, tally) {
	if o.capReason == apitypes.CapReasonConcurrent {
		t.capRefusals++
		return decision{
			act:    actAwaitSlot,
			wait:   delay{n: t.capRefusals, lo: p.capBase, hi: p.capMax, floor: o.retryAfter},
			reason: "concurrent project cap reached",
		}, t
	}
	t.limited++
	switch {
	case t.limited > p.max429:
		return fail("rate limited: 429 retries used up"), t
	case o.retryAfter > 0:
		return decision{act: actPause, wait: delay{floor: o.retryAfter}, reason: "rate limited: Retry-After"}, t
	}
	return backoffBy(t.limited, p.base, p.max, "rate limited"), t
}

func fail(reason string) decision { return decision{act: actFail, reason: reason} }

func backoffBy(n int, lo, hi time.Duration, reason string) decision {
	return decision{act: actBackoff, wait: delay{n: n, lo: lo, hi: hi}, reason: reason}
}
