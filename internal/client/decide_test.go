package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// Transport errors as http.Client.Do and Client.send report them.
var (
	errRefused = &url.Error{Op: "Post", URL: "http://svc.test/api/clip-projects", Err: &net.OpError{
		Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED),
	}}
	errNoRoute = &url.Error{Op: "Post", URL: "http://svc.test/api/clip-projects", Err: &net.OpError{
		Op: "dial", Net: "tcp", Err: errors.New("no route to host"),
	}}
	errReadTimeout = &url.Error{Op: "Post", URL: "http://svc.test/api/clip-projects", Err: &net.OpError{
		Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded,
	}}
	errHeaderTimeout = &url.Error{Op: "Post", URL: "http://svc.test/api/clip-projects",
		Err: errors.New("net/http: timeout awaiting response headers")}
	errReset = &url.Error{Op: "Post", URL: "http://svc.test/api/clip-projects", Err: &net.OpError{
		Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET),
	}}
	errClosed    = &url.Error{Op: "Post", URL: "http://svc.test/api/clip-projects", Err: io.EOF}
	errCutOff    = fmt.Errorf("reading 201 answer: %w", io.ErrUnexpectedEOF)
	errCancelled = &url.Error{Op: "Get", URL: "http://svc.test/api/clip-projects/p1", Err: context.Canceled}
)

// answer is the outcome of an attempt that got a whole answer with status.
func answer(method string, status int) outcome {
	return outcome{idempotent: idempotent(method), status: status}
}

// failed is the outcome of an attempt that failed with a transport error
// after status arrived (0: none did).
func failed(method string, status int, err error) outcome {
	return outcome{idempotent: idempotent(method), status: status, err: err}
}

func withRetryAfter(o outcome, d time.Duration) outcome { o.retryAfter = d; return o }

func concurrentCap(o outcome) outcome { o.capReason = apitypes.CapReasonConcurrent; return o }

func monthlyCap(o outcome) outcome { o.monthlyCap = true; return o }

func ctxEnded(o outcome) outcome { o.ctxEnded = true; return o }

func ridingOut(o outcome) outcome { o.rideOut = true; return o }

// TestDecide is the retry policy, row by row: every status the service
// interface lists (and filled-gaps adds), transport errors before and after
// the server may have acted, and the bounds of each kind of retry. It runs on
// the production policy, so the rows also pin its numbers.
func TestDecide(t *testing.T) {
	const (
		get, post, del = http.MethodGet, http.MethodPost, http.MethodDelete
	)
	p := defaultRetryPolicy
	slot := func(n int, floor time.Duration) delay { return delay{n: n, lo: p.capBase, hi: p.capMax, floor: floor} }
	var (
		done          = decision{act: actDone, reason: "success"}
		notRetried    = fail("status not retried")
		capped        = fail("monthly API cap reached: never retried")
		postServerErr = fail("server error on a request that is not idempotent: the server may have acted")
		serverErr     = func(n int) decision { return backoffBy(n, p.base, p.max, "server error") }
		serverOut     = fail("server error: attempts used up")
		limited       = func(n int) decision { return backoffBy(n, p.base, p.max, "rate limited") }
		paused        = func(d time.Duration) decision {
			return decision{act: actPause, wait: delay{floor: d}, reason: "rate limited: Retry-After"}
		}
		limitedOut = fail("rate limited: 429 retries used up")
		awaitSlot  = func(n int, floor time.Duration) decision {
			return decision{act: actAwaitSlot, wait: slot(n, floor), reason: "concurrent project cap reached"}
		}
		netErr  = func(n int) decision { return backoffBy(n, p.base, p.max, "network error") }
		netOut  = fail("network error: attempts used up")
		mayHave = fail("network error after the server may have acted on a request that is not idempotent")
		ctxGone = fail("the caller's context ended")
	)
	cases := []struct {
		name  string
		o     outcome
		tally tally
		want  decision
		after tally
	}{
		// 2xx.
		{name: "GET 200", o: answer(get, 200), want: done},
		{name: "POST 201", o: answer(post, 201), want: done},
		{name: "DELETE 204", o: answer(del, 204), want: done},
		{name: "200 after earlier failures keeps the tally", o: answer(get, 200),
			tally: tally{failures: 2, limited: 1}, want: done, after: tally{failures: 2, limited: 1}},

		// 4xx other than 429: returned at once, whatever the method.
		{name: "POST 400 invalid body", o: answer(post, 400), want: notRetried},
		{name: "GET 400 invalid query", o: answer(get, 400), want: notRetried},
		{name: "GET 401 bad key", o: answer(get, 401), want: notRetried},
		{name: "POST 402 quota", o: answer(post, 402), want: notRetried},
		{name: "GET 403 not the monthly cap", o: answer(get, 403), want: notRetried},
		{name: "GET 404", o: answer(get, 404), want: notRetried},
		{name: "DELETE 404", o: answer(del, 404), want: notRetried},
		{name: "POST 409 (not in the spec: any other 4xx)", o: answer(post, 409), want: notRetried},
		{name: "GET 304 (a 3xx the transport did not follow)", o: answer(get, 304), want: notRetried},

		// 403 monthly cap: never retried, even for idempotent methods or a
		// Retry-After the service should not send with it.
		{name: "POST 403 monthly cap", o: monthlyCap(answer(post, 403)), want: capped},
		{name: "GET 403 monthly cap", o: monthlyCap(answer(get, 403)), want: capped},
		{name: "DELETE 403 monthly cap with Retry-After", o: withRetryAfter(monthlyCap(answer(del, 403)), time.Second), want: capped},

		// 429 rate: retried for any method (the request was refused).
		{name: "GET 429 Retry-After pauses the key", o: withRetryAfter(answer(get, 429), 7*time.Second),
			want: paused(7 * time.Second), after: tally{limited: 1}},
		{name: "POST 429 Retry-After pauses the key", o: withRetryAfter(answer(post, 429), time.Second),
			want: paused(time.Second), after: tally{limited: 1}},
		{name: "POST 429 without Retry-After backs off", o: answer(post, 429),
			want: limited(1), after: tally{limited: 1}},
		{name: "GET 429 backoff grows with the 429s", o: answer(get, 429), tally: tally{limited: 3},
			want: limited(4), after: tally{limited: 4}},
		{name: "429s do not spend the failure budget", o: answer(get, 429), tally: tally{failures: 4},
			want: limited(1), after: tally{failures: 4, limited: 1}},
		{name: "GET 429 number max429 is still retried", o: answer(get, 429), tally: tally{limited: 7},
			want: limited(8), after: tally{limited: 8}},
		{name: "GET 429 past max429 is returned", o: answer(get, 429), tally: tally{limited: 8},
			want: limitedOut, after: tally{limited: 9}},
		{name: "429 past max429 is returned despite Retry-After", o: withRetryAfter(answer(post, 429), time.Second),
			tally: tally{limited: 8}, want: limitedOut, after: tally{limited: 9}},

		// 429 X-Cap-Reason: concurrent: retried without bound, at least Retry-After.
		{name: "POST 429 concurrent waits for a slot", o: concurrentCap(answer(post, 429)),
			want: awaitSlot(1, 0), after: tally{capRefusals: 1}},
		{name: "429 concurrent waits at least Retry-After", o: withRetryAfter(concurrentCap(answer(post, 429)), 3*time.Minute),
			want: awaitSlot(1, 3*time.Minute), after: tally{capRefusals: 1}},
		{name: "429 concurrent has no bound and spends no other budget", o: concurrentCap(answer(post, 429)),
			tally: tally{failures: 4, limited: 8, capRefusals: 1000},
			want:  awaitSlot(1001, 0), after: tally{failures: 4, limited: 8, capRefusals: 1001}},

		// 5xx: retried only for idempotent methods, up to maxAttempts failures.
		{name: "GET 500", o: answer(get, 500), want: serverErr(1), after: tally{failures: 1}},
		{name: "GET 502", o: answer(get, 502), tally: tally{failures: 2}, want: serverErr(3), after: tally{failures: 3}},
		{name: "DELETE 503", o: answer(del, 503), want: serverErr(1), after: tally{failures: 1}},
		{name: "GET 503 Retry-After is not read on a 5xx", o: withRetryAfter(answer(get, 503), time.Minute),
			want: serverErr(1), after: tally{failures: 1}},
		{name: "GET 504 with one attempt left", o: answer(get, 504), tally: tally{failures: 3},
			want: serverErr(4), after: tally{failures: 4}},
		{name: "GET 504 on the last attempt", o: answer(get, 504), tally: tally{failures: 4},
			want: serverOut, after: tally{failures: 5}},
		{name: "DELETE 500 on the last attempt", o: answer(del, 500), tally: tally{failures: 4},
			want: serverOut, after: tally{failures: 5}},
		{name: "5xx do not spend the 429 budget", o: answer(get, 500), tally: tally{limited: 8},
			want: serverErr(1), after: tally{failures: 1, limited: 8}},
		{name: "POST 500", o: answer(post, 500), want: postServerErr},
		{name: "POST 502", o: answer(post, 502), want: postServerErr},
		{name: "POST 503", o: answer(post, 503), want: postServerErr},
		{name: "POST 504", o: answer(post, 504), want: postServerErr},

		// Transport errors before the request reached the server: any method goes again.
		{name: "POST connection refused", o: failed(post, 0, errRefused), want: netErr(1), after: tally{failures: 1}},
		{name: "POST dial error", o: failed(post, 0, errNoRoute), want: netErr(1), after: tally{failures: 1}},
		{name: "POST refused with one attempt left", o: failed(post, 0, errRefused), tally: tally{failures: 3},
			want: netErr(4), after: tally{failures: 4}},
		{name: "POST refused on the last attempt", o: failed(post, 0, errRefused), tally: tally{failures: 4},
			want: netOut, after: tally{failures: 5}},
		{name: "network errors and 5xx share one budget", o: failed(get, 0, errReset), tally: tally{failures: 4},
			want: netOut, after: tally{failures: 5}},

		// Transport errors after the server may have acted: only GET/DELETE go again.
		{name: "POST read timeout", o: failed(post, 0, errReadTimeout), want: mayHave, after: tally{failures: 1}},
		{name: "POST response header timeout", o: failed(post, 0, errHeaderTimeout), want: mayHave, after: tally{failures: 1}},
		{name: "POST connection reset", o: failed(post, 0, errReset), want: mayHave, after: tally{failures: 1}},
		{name: "POST connection closed without an answer", o: failed(post, 0, errClosed), want: mayHave, after: tally{failures: 1}},
		{name: "POST body cut off after the status line", o: failed(post, 201, errCutOff), want: mayHave, after: tally{failures: 1}},
		{name: "POST body of a 429 cut off", o: failed(post, 429, errCutOff), want: mayHave, after: tally{failures: 1}},
		{name: "POST status line arrived, then a dial-looking error", o: failed(post, 200, errRefused),
			want: mayHave, after: tally{failures: 1}},
		{name: "GET read timeout", o: failed(get, 0, errReadTimeout), want: netErr(1), after: tally{failures: 1}},
		{name: "GET connection reset", o: failed(get, 0, errReset), tally: tally{failures: 1},
			want: netErr(2), after: tally{failures: 2}},
		{name: "GET body cut off after the status line", o: failed(get, 200, errCutOff), want: netErr(1), after: tally{failures: 1}},
		{name: "DELETE connection reset", o: failed(del, 0, errReset), want: netErr(1), after: tally{failures: 1}},
		{name: "DELETE connection closed without an answer", o: failed(del, 0, errClosed), want: netErr(1), after: tally{failures: 1}},

		// Riding out an outage until the caller's deadline (RideOutOutages):
		// what is safe to repeat goes on past maxAttempts, at the longest
		// backoff; what the server may have acted on is still not repeated.
		{name: "POST refused past the attempts, riding out", o: ridingOut(failed(post, 0, errRefused)), tally: tally{failures: 9},
			want: netErr(10), after: tally{failures: 10}},
		{name: "GET 503 past the attempts, riding out", o: ridingOut(answer(get, 503)), tally: tally{failures: 4},
			want: serverErr(5), after: tally{failures: 5}},
		{name: "DELETE reset past the attempts, riding out", o: ridingOut(failed(del, 0, errReset)), tally: tally{failures: 7},
			want: netErr(8), after: tally{failures: 8}},
		{name: "POST reset while riding out", o: ridingOut(failed(post, 0, errReset)), tally: tally{failures: 7},
			want: mayHave, after: tally{failures: 8}},
		{name: "POST 503 while riding out", o: ridingOut(answer(post, 503)), want: postServerErr},
		{name: "GET 429 past max429 while riding out", o: ridingOut(answer(get, 429)), tally: tally{limited: 8},
			want: limitedOut, after: tally{limited: 9}},
		{name: "POST 403 monthly cap while riding out", o: ridingOut(monthlyCap(answer(post, 403))), want: capped},

		// The caller's context ended: no retry and nothing counted, whatever the error looks like.
		{name: "GET cancelled", o: ctxEnded(failed(get, 0, errCancelled)), tally: tally{limited: 2},
			want: ctxGone, after: tally{limited: 2}},
		{name: "POST dial cut short by the deadline", o: ctxEnded(failed(post, 0, errRefused)), want: ctxGone},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, after := decide(p, tc.tally, tc.o)
			if got != tc.want {
				t.Errorf("decision = %+v, want %+v", got, tc.want)
			}
			if after != tc.after {
				t.Errorf("tally after = %+v, want %+v", after, tc.after)
			}
		})
	}
}

// An answer the server sent is retried for a POST only when it is a 429: the
// service refused the request without acting on it.
func TestDecideRetriesAnsweredPostOnlyOn429(t *testing.T) {
	for status := 100; status < 600; status++ {
		d, _ := decide(defaultRetryPolicy, tally{}, answer(http.MethodPost, status))
		retried := d.act != actDone && d.act != actFail
		if retried != (status == http.StatusTooManyRequests) {
			t.Errorf("POST %d: decision %+v", status, d)
		}
	}
}

// The monthly cap ends the call at once, whatever was counted before.
func TestDecideNeverRetriesMonthlyCap(t *testing.T) {
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
		for _, tl := range []tally{{}, {failures: 4}, {limited: 8}, {capRefusals: 3}} {
			if d, _ := decide(defaultRetryPolicy, tl, monthlyCap(answer(method, 403))); d.act != actFail {
				t.Errorf("%s 403 monthly cap after %+v: %+v", method, tl, d)
			}
		}
	}
}

func TestDelayDuration(t *testing.T) {
	if got := (delay{floor: 7 * time.Second}).duration(); got != 7*time.Second {
		t.Errorf("a pause of Retry-After 7s waits %v", got)
	}
	if got := (delay{}).duration(); got != 0 {
		t.Errorf("an empty delay waits %v", got)
	}
	for n := 1; n <= 6; n++ {
		d := delay{n: n, lo: time.Second, hi: 8 * time.Second}
		full := min(time.Second<<(n-1), 8*time.Second)
		if got := d.duration(); got < full/2 || got > full {
			t.Errorf("backoff %d waits %v, want within [%v, %v]", n, got, full/2, full)
		}
		d.floor = time.Minute
		if got := d.duration(); got != time.Minute {
			t.Errorf("backoff %d with a 1m floor waits %v", n, got)
		}
	}
}
