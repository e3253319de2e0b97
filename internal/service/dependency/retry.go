// Package dependency keeps clipperd's operations going through a short
// outage of what it depends on, the database and the bucket: a call that
// fails for want of a connection (refused, reset, a timeout, a 5xx, a
// database shutting down or starting up) is tried again on the backoff
// curve for up to a window (Retry), and Health says meanwhile what is down,
// for /readyz, the gauge clipperd_dependency_up and one ERROR line on the
// failure curve of package repeat.
//
// A restart of PostgreSQL (seconds) or a bucket away for less than the
// window then costs a wait inside the operation, not a failed stage, a
// retry of the project and a render done again.
package dependency

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/backoff"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/repeat"
)

// The dependencies Health watches, the values of the gauge's label.
const (
	Database = "database"
	Bucket   = "bucket"
)

// DefaultWindow is how long a call is retried before its error is the
// operation's: a PostgreSQL restart or a bucket's failover takes seconds.
const DefaultWindow = 60 * time.Second

// The curve of the retries: repeat's failure curve (1 s doubling) capped
// at RetryMax, so a dependency back after 20 s is found within 10 s.
const (
	RetryBase = repeat.FailureBase
	RetryMax  = 10 * time.Second
)

// Retry retries calls to one dependency that fail transiently, for up to
// Window from the first failure. The zero Window retries nothing. Its
// methods are safe for concurrent use.
type Retry struct {
	// Name is the dependency, Database or Bucket.
	Name string
	// Window bounds the retries of one call: past it the last error is
	// returned. 0 retries nothing.
	Window time.Duration
	// Health is told of each transient failure and each success; nil: none.
	Health *Health
	// Now and Sleep are the clock (tests); nil: the wall clock.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// noRetryKey marks a context whose calls are tried once.
type noRetryKey struct{}

// Once is ctx whose calls through a Retry are tried once: a start that
// must fail fast on a wrong address, and Health's own probes, which are
// the measure of whether the dependency answers now.
func Once(ctx context.Context) context.Context {
	return context.WithValue(ctx, noRetryKey{}, true)
}

func once(ctx context.Context) bool {
	v, _ := ctx.Value(noRetryKey{}).(bool)
	return v
}

// probeKey marks the context of Health's own probe, whose failure must
// not wake the probe again.
type probeKey struct{}

func probing(ctx context.Context) bool {
	v, _ := ctx.Value(probeKey{}).(bool)
	return v
}

// Do runs op, and again while it fails with an error transient accepts,
// on the curve, until Window has passed since the first failure or ctx
// ends. op must be safe to repeat: a write whose first attempt may have
// applied is the caller's to keep out (its error is then not transient).
func (r *Retry) Do(ctx context.Context, transient func(error) bool, op func(context.Context) error) error {
	var first time.Time
	for n := 1; ; n++ {
		err := op(ctx)
		if err == nil {
			r.Health.Succeeded(r.Name)
			return nil
		}
		var spent *UnreachableError
		if ctx.Err() != nil || !transient(err) || errors.As(err, &spent) {
			return err // final, or an inner retry's (the connector's under a transaction) that spent the window
		}
		r.Health.failed(r.Name, err, !probing(ctx))
		if r.Window <= 0 || once(ctx) {
			return err
		}
		now := r.now()
		if n == 1 {
			first = now
		}
		left := r.Window - now.Sub(first)
		if left <= 0 {
			return &UnreachableError{Name: r.Name, Window: r.Window, Err: err}
		}
		if r.sleep(ctx, min(backoff.Exponential(n, RetryBase, RetryMax), left)) != nil {
			return err
		}
	}
}

func (r *Retry) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Retry) sleep(ctx context.Context, d time.Duration) error {
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	return backoff.Sleep(ctx, d)
}

// UnreachableError is a call's last error once its retries spent the
// window: callers with retries of their own need not wait again.
type UnreachableError struct {
	Name   string
	Window time.Duration
	Err    error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("%s unreachable for %s: %v", e.Name, e.Window, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// NetworkError reports whether err is a connection's failure rather than
// an answer: refused, reset, cut short, or timed out on the way. The
// backends add their servers' own transient answers (a 5xx, a database
// shutting down).
func NetworkError(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	for _, e := range []error{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE,
		syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.ETIMEDOUT, io.ErrUnexpectedEOF, net.ErrClosed} {
		if errors.Is(err, e) {
			return true
		}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	// A connection the server closed before answering: an *url.Error or
	// *net.OpError around a bare io.EOF (a bare io.EOF is a read's end).
	var op *net.OpError
	return errors.As(err, &op) || (err != io.EOF && errors.Is(err, io.EOF))
}
