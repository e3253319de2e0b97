package dependency_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency/dependencytest"
)

// refused is the error of a connection to a server that is away.
var refused = &net.OpError{Op: "dial", Net: "tcp", Err: fmt.Errorf("connect: %w", syscall.ECONNREFUSED)}

// TestRetryRidesOutAnOutage: calls refused twice wait 1 s then 2 s (the
// curve), the dependency is down meanwhile, and the third attempt's answer
// is the call's; the dependency is up again.
func TestRetryRidesOutAnOutage(t *testing.T) {
	clock := dependencytest.NewClock()
	health := dependency.NewHealth(nil)
	health.Watch(dependency.Database, func(context.Context) error { return nil })
	r := clock.Retry(dependency.Database, time.Minute, health)
	var attempts atomic.Int32
	done := make(chan error)
	go func() {
		done <- r.Do(t.Context(), dependency.NetworkError, func(context.Context) error {
			if attempts.Add(1) < 3 {
				return refused
			}
			return nil
		})
	}()
	for _, want := range []time.Duration{time.Second, 2 * time.Second} {
		if got := clock.Await(t); got != want {
			t.Errorf("wait %s, want %s", got, want)
		}
		if health.Up(dependency.Database) {
			t.Error("the database is up while its calls are refused")
		}
		if err := health.Ready(); err == nil || !strings.Contains(err.Error(), "the database is unreachable") {
			t.Errorf("Ready = %v, want the database named unreachable", err)
		}
		clock.End(t)
	}
	if err := <-done; err != nil {
		t.Fatalf("Do = %v, want the third attempt's success", err)
	}
	if attempts.Load() != 3 || !health.Up(dependency.Database) || health.Ready() != nil {
		t.Errorf("attempts %d, up %v, ready %v; want 3, true, nil", attempts.Load(), health.Up(dependency.Database), health.Ready())
	}
}

// TestRetryEndsWithTheWindow: a dependency away for longer than the window
// has its call retried until the window is spent (the last wait cut to
// what is left), then the call fails with its error, naming the window.
func TestRetryEndsWithTheWindow(t *testing.T) {
	clock := dependencytest.NewClock()
	r := clock.Retry(dependency.Bucket, 5*time.Second, nil)
	done := make(chan error)
	go func() {
		done <- r.Do(t.Context(), dependency.NetworkError, func(context.Context) error { return refused })
	}()
	for _, want := range []time.Duration{time.Second, 2 * time.Second, 2 * time.Second} {
		if got := clock.Await(t); got != want {
			t.Errorf("wait %s, want %s", got, want)
		}
		clock.End(t)
	}
	err := <-done
	var spent *dependency.UnreachableError
	if !errors.Is(err, syscall.ECONNREFUSED) || !errors.As(err, &spent) || err.Error() != "bucket unreachable for 5s: "+refused.Error() {
		t.Errorf("Do = %v, want the refusal after 5s", err)
	}
	// A retry around one that spent its window (a transaction's around its
	// connector's) returns that error at once, as it is.
	outer := clock.Retry(dependency.Bucket, time.Minute, nil)
	if got := outer.Do(t.Context(), dependency.NetworkError, func(context.Context) error { return err }); got != err || clock.Waited() != 3 {
		t.Errorf("the outer retry: %v after %d waits, want the inner one's error as it is, after its 3", got, clock.Waited())
	}
}

// TestRetryTakesAnAnswerAsFinal: an error that is an answer (a refusal of
// the request, not of the connection) is returned at once, and so is any
// error of a call tried Once, or of a Retry without a window.
func TestRetryTakesAnAnswerAsFinal(t *testing.T) {
	clock := dependencytest.NewClock()
	denied := errors.New("AccessDenied")
	for name, c := range map[string]struct {
		r   *dependency.Retry
		ctx context.Context
		err error
	}{
		"answer":    {clock.Retry(dependency.Bucket, time.Minute, nil), t.Context(), denied},
		"once":      {clock.Retry(dependency.Bucket, time.Minute, nil), dependency.Once(t.Context()), refused},
		"no window": {clock.Retry(dependency.Bucket, 0, nil), t.Context(), refused},
	} {
		attempts := 0
		err := c.r.Do(c.ctx, dependency.NetworkError, func(context.Context) error { attempts++; return c.err })
		if !errors.Is(err, c.err) || attempts != 1 {
			t.Errorf("%s: Do = %v after %d attempts, want %v after 1", name, err, attempts, c.err)
		}
	}
	if clock.Waited() != 0 {
		t.Errorf("%d waits, want none", clock.Waited())
	}
}

func TestNetworkError(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{refused, true},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{fmt.Errorf(`Get "http://x": %w`, io.EOF), true},
		{io.EOF, false},
		{&net.OpError{Op: "read", Err: errors.New("EOF")}, true},
		{fmt.Errorf("get: %w", context.DeadlineExceeded), false},
		{context.Canceled, false},
		{errors.New("AccessDenied"), false},
		{nil, false},
	} {
		if got := dependency.NetworkError(c.err); got != c.want {
			t.Errorf("NetworkError(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// records is a slog handler that hands each record to a channel.
type records chan slog.Record

func (records) Enabled(context.Context, slog.Level) bool          { return true }
func (r records) Handle(_ context.Context, rec slog.Record) error { r <- rec; return nil }
func (r records) WithAttrs([]slog.Attr) slog.Handler              { return r }
func (r records) WithGroup(string) slog.Handler                   { return r }

// next is the next record at level, the others skipped.
func (r records) next(t *testing.T, level slog.Level) slog.Record {
	t.Helper()
	for {
		select {
		case rec := <-r:
			if rec.Level == level {
				return rec
			}
		case <-time.After(time.Minute):
			t.Fatalf("no %s record", level)
		}
	}
}

// TestHealthProbesWhatIsDown: a failed call wakes the dependency's probe,
// whose failures are logged at ERROR naming what is down (on the loop's
// failure curve, not per call); when the probe answers, the dependency is
// up and an INFO line says so.
func TestHealthProbesWhatIsDown(t *testing.T) {
	logs := make(records, 100)
	health := dependency.NewHealth(slog.New(logs))
	health.Period = time.Hour // the probe runs when woken, not by the period
	health.FailureBase, health.FailureMax = time.Millisecond, time.Millisecond
	var away atomic.Bool
	probes := make(chan struct{}, 100)
	health.Watch(dependency.Bucket, func(ctx context.Context) error {
		probes <- struct{}{}
		if away.Load() {
			return refused
		}
		return nil
	})
	health.Start(t.Context())
	defer health.Stop()
	<-probes // the first, at start
	away.Store(true)
	for range 10 { // calls failing at once: one wake-up
		health.Failed(dependency.Bucket, refused)
	}
	rec := logs.next(t, slog.LevelError)
	if !strings.Contains(rec.Message, "bucket unreachable") {
		t.Errorf("ERROR line %q, want it to name the bucket", rec.Message)
	}
	if health.Up(dependency.Bucket) {
		t.Error("the bucket is up while its probe fails")
	}
	away.Store(false)
	rec = logs.next(t, slog.LevelInfo)
	if !strings.Contains(rec.Message, "bucket answers again") || !health.Up(dependency.Bucket) || health.Ready() != nil {
		t.Errorf("after the outage: %q, up %v, ready %v", rec.Message, health.Up(dependency.Bucket), health.Ready())
	}
}
