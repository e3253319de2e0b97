package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"syscall"
	"time"

	backoffpkg "github.com/clipperhq/terraform-provider-clipper/internal/backoff"
)

// retryPolicy holds the backoff knobs. Tests shrink them; production uses
// defaultRetryPolicy.
type retryPolicy struct {
	maxAttempts int           // attempts of a GET/DELETE failing with a network error or 5xx
	max429      int           // retries after plain (rate) 429s
	base, max   time.Duration // exponential backoff for network errors, 5xx, 429 without Retry-After
	capBase     time.Duration // backoff after a 429 concurrent-cap refusal
	capMax      time.Duration
}

var defaultRetryPolicy = retryPolicy{
	maxAttempts: 5,
	max429:      8,
	base:        time.Second,
	max:         30 * time.Second,
	// Long on purpose: a slot freed by a project this process waits on wakes
	// the create at once (waitForSlot); the timer only covers slots freed by
	// others, and every early retry spends the key's request budget.
	capBase: 30 * time.Second,
	capMax:  2 * time.Minute,
}

// backoff returns the delay before retry number n (1-based), with jitter so
// parallel clients do not retry in lockstep.
func backoff(n int, lo, hi time.Duration) time.Duration { return backoffpkg.Jittered(n, lo, hi) }

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	return sleepOrWake(ctx, d, nil)
}

// sleepOrWake is sleep that also ends, without error, when wake is closed.
func sleepOrWake(ctx context.Context, d time.Duration, wake <-chan struct{}) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	case <-wake:
		return nil
	}
}

// idempotent methods may be sent again after any failure.
func idempotent(method string) bool {
	return method == http.MethodGet || method == http.MethodDelete || method == http.MethodHead
}

// mayResend reports whether a request whose attempt failed with a transport
// error may be sent again: an idempotent one always; any other only when it
// certainly never reached the server. A status line that arrived (the body
// was then cut off) means the server acted, whatever the error says.
func mayResend(idempotent, statusArrived bool, err error) bool {
	return idempotent || (!statusArrived && notSent(err))
}

// notSent reports whether a transport error certainly happened before the
// server could see the request: the connection was refused or never dialed.
// Only then is a POST safe to send again; after a timeout or a reset the server
// may have acted on it.
func notSent(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// rideOutKey marks a context whose calls ride out outages.
type rideOutKey struct{}

// RideOutOutages returns ctx marked so that the calls made with it ride out
// an outage of the service until ctx's deadline: a request that is safe to
// send again (any GET or DELETE, and a POST whose connection was refused, so
// that the service never saw it) is sent again after network errors and 5xx
// answers for as long as ctx lasts, not a fixed number of times. It is for an
// operation bounded by a deadline the user chose (a resource's timeouts); a
// ctx without a deadline is not marked, so nothing retries forever. A POST
// the service may have acted on is still never sent again.
func RideOutOutages(ctx context.Context) context.Context {
	if _, ok := ctx.Deadline(); !ok {
		return ctx
	}
	return context.WithValue(ctx, rideOutKey{}, true)
}

func ridesOut(ctx context.Context) bool {
	on, _ := ctx.Value(rideOutKey{}).(bool)
	return on
}
