package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// maxResponseBody bounds a JSON answer read into memory; clip lists are paged,
// so real answers stay far below it.
const maxResponseBody = 64 << 20

// apiCall describes one request to an /api/ endpoint.
type apiCall struct {
	method   string
	path     string     // "/api/...", already escaped
	query    url.Values // optional
	body     any        // JSON-encoded when non-nil
	out      any        // decoded from the answer when non-nil
	envelope bool       // the answer is {"data": out}
}

// call sends ac through the shared rate limiter and retries it as decide
// says (GET and DELETE after network errors and 5xx; a POST only when the
// server certainly did not act: a 429, a refused connection; never a 403
// monthly cap or another 4xx). Acting on a decision is call's part:
//   - a plain 429 with Retry-After holds back every client of the same key
//     (the next attempt waits it out in the limiter); without it, a backoff;
//   - a 429 with X-Cap-Reason: concurrent waits 30s..2m, or less when a wait
//     in this process sees a project of the key finish, until the create is
//     accepted or ctx ends;
//   - when ctx ends during a wait, the error names the failure that made the
//     call wait and then why it stopped.
func (c *Client) call(ctx context.Context, ac apiCall) error {
	pc, err := prepare(c.baseURL, ac)
	if err != nil {
		return err
	}
	if pc.method == http.MethodGet {
		pc.attemptLimit = c.readLimit
	}
	var (
		t       tally
		lastErr error // why the previous attempt failed, kept if ctx ends before the next
	)
	for attempt := 1; ; attempt++ {
		if attempt > 1 {
			c.retries.Add(1)
		}
		if err := c.waitTurn(ctx, ac.path); err != nil {
			if lastErr != nil {
				return stopped(lastErr, err)
			}
			return fmt.Errorf("%s %s: waiting for the rate limiter: %w", ac.method, ac.path, err)
		}
		r, err := c.attempt(ctx, pc, attempt)
		if rateLimited(ac.path) {
			c.limiter.answered(r.limiterStatus(), r.retryAfter, r.remaining, r.reset)
		}
		if err != nil {
			return err
		}
		var d decision
		d, t = decide(c.policy, t, r.outcome)
		switch d.act {
		case actDone:
			return pc.decode(r)
		case actFail:
			return pc.failure(r, lastErr, attempt)
		}
		lastErr = pc.errorOf(r)
		if d.act == actBackoff && (r.err != nil || r.status >= 500) {
			c.warn(ctx, "clipper API unavailable ("+d.reason+"); sending the request again", map[string]any{
				"method": pc.method, "path": pc.logPath, "failures": t.failures, "error": lastErr,
			})
		}
		if err := c.holdOff(ctx, pc, d, t); err != nil {
			return stopped(lastErr, err)
		}
	}
}

// preparedCall is an apiCall ready to send: its body encoded once for every
// attempt, its address built.
type preparedCall struct {
	apiCall
	payload []byte // nil when there is no body
	target  string // absolute URL with the query
	logPath string // path and query, as logged
	// attemptLimit is the deadline of each attempt (GETs), named when
	// every attempt ran out of it.
	attemptLimit time.Duration
}

func prepare(baseURL string, ac apiCall) (*preparedCall, error) {
	pc := &preparedCall{apiCall: ac, target: baseURL + ac.path, logPath: ac.path}
	if ac.body != nil {
		var err error
		if pc.payload, err = json.Marshal(ac.body); err != nil {
			return nil, fmt.Errorf("%s %s: encoding request body: %w", ac.method, ac.path, err)
		}
	}
	if len(ac.query) > 0 {
		q := "?" + ac.query.Encode()
		pc.target += q
		pc.logPath += q
	}
	return pc, nil
}

// reply is what one attempt came back with.
type reply struct {
	outcome
	body   []byte // the whole answer, when it arrived
	apiErr error  // the typed error of a non-2xx answer
	// What the answer said of the rate window: X-RateLimit-Remaining (-1
	// when absent) and X-RateLimit-Reset.
	remaining int
	reset     time.Time
}

// limiterStatus is the status the rate limiter learns from: a refusal for
// the concurrent-project cap says nothing of the rate window, nor does a
// missing answer (0).
func (r reply) limiterStatus() int {
	if r.status == http.StatusTooManyRequests && r.capReason == apitypes.CapReasonConcurrent {
		return 0
	}
	return r.status
}

// attempt builds, logs and sends one attempt of pc. Only building the request
// fails here; what the network or the server did is in the reply.
func (c *Client) attempt(ctx context.Context, pc *preparedCall, n int) (reply, error) {
	var body io.Reader
	if pc.payload != nil {
		body = bytes.NewReader(pc.payload)
	}
	reqCtx := ctx
	if pc.method == http.MethodGet {
		// The attempt's own deadline: a read that outlasts it fails like a
		// network error (retried), while ctx still bounds the whole call.
		var cancel context.CancelFunc
		reqCtx, cancel = context.WithTimeout(ctx, c.readLimit)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(reqCtx, pc.method, pc.target, body)
	if err != nil {
		return reply{}, fmt.Errorf("%s %s: building request: %w", pc.method, pc.path, err)
	}
	c.setAPIHeaders(req, pc.payload != nil)
	c.trace(ctx, "clipper API request", map[string]any{
		"method": pc.method, "path": pc.logPath, "attempt": n,
		"headers": c.headerFields(req.Header), "body": bodyField(pc.payload),
	})

	resp, respBody, dur, err := c.send(req)
	if err != nil {
		c.debug(ctx, "clipper API request failed", map[string]any{
			"method": pc.method, "path": pc.logPath, "attempt": n,
			"duration_ms": dur.Milliseconds(), "error": err,
		})
		r := reply{outcome: outcome{idempotent: idempotent(pc.method), err: err, rideOut: ridesOut(ctx)}}
		r.ctxEnded = ctx.Err() != nil
		if resp != nil {
			r.status = resp.StatusCode // the body was cut off after the status line
		}
		return r, nil
	}
	c.debug(ctx, "clipper API response", map[string]any{
		"method": pc.method, "path": pc.logPath, "attempt": n,
		"status": resp.StatusCode, "duration_ms": dur.Milliseconds(),
	})
	c.trace(ctx, "clipper API response body", map[string]any{
		"method": pc.method, "path": pc.logPath, "status": resp.StatusCode, "body": bodyField(respBody),
	})
	r := c.answered(pc, resp, respBody)
	r.rideOut = ridesOut(ctx)
	return r, nil
}

// answered is the reply of an attempt that got a whole answer. A 429 is
// counted in Stats here, whatever decide then makes of it.
func (c *Client) answered(pc *preparedCall, resp *http.Response, body []byte) reply {
	r := reply{outcome: outcome{idempotent: idempotent(pc.method), status: resp.StatusCode}, body: body, remaining: -1}
	if n, err := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining")); err == nil && n >= 0 {
		r.remaining = n
	}
	if n, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil && n > 0 {
		r.reset = time.Unix(n, 0)
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return r
	}
	r.apiErr = parseError(pc.method, pc.path, resp, body)
	var ae *APIError
	if errors.As(r.apiErr, &ae) {
		r.retryAfter, r.capReason = ae.RetryAfter, ae.CapReason
	}
	var mc *MonthlyCapError
	r.monthlyCap = errors.As(r.apiErr, &mc)
	if resp.StatusCode == http.StatusTooManyRequests {
		c.limited.Add(1)
		if r.capReason == apitypes.CapReasonConcurrent {
			c.concurrent.Add(1)
		}
	}
	return r
}

// holdOff waits before the next attempt as d says.
func (c *Client) holdOff(ctx context.Context, pc *preparedCall, d decision, t tally) error {
	wait := d.wait.duration()
	switch d.act {
	case actPause:
		// The key is over its rate for every client in the process: hold
		// them all back; the next attempt waits it out in waitTurn.
		c.limiter.pause(wait)
		return nil
	case actAwaitSlot:
		c.debug(ctx, "clipper "+d.reason+"; retrying", map[string]any{
			"method": pc.method, "path": pc.logPath, "refusals": t.capRefusals, "wait_ms": wait.Milliseconds(),
		})
		// The service's cap is fuller than this process knew (projects of
		// other processes): the pool learns so, and the create is sent again
		// after the backoff, or as soon as this process sees one of its
		// projects finish, whichever comes first.
		wake, cancelWait := c.slots.refused()
		defer cancelWait()
		return sleepOrWake(ctx, wait, wake)
	}
	return sleep(ctx, wait)
}

// decode reads a 2xx answer into the call's out.
func (pc *preparedCall) decode(r reply) error {
	if err := decodeAnswer(r.body, pc.out, pc.envelope); err != nil {
		return fmt.Errorf("%s %s: decoding %d answer: %w", pc.method, pc.path, r.status, err)
	}
	return nil
}

// errorOf is the error of one failed attempt.
func (pc *preparedCall) errorOf(r reply) error {
	if r.err == nil {
		return r.apiErr
	}
	return fmt.Errorf("%s %s: %w", pc.method, pc.path, r.err)
}

// failure is the error the call ends with when decide gives up after attempt
// n: the server's answer as is; a network error with the attempts it took;
// ctx ending mid-request after the failure that made the call retry.
func (pc *preparedCall) failure(r reply, lastErr error, n int) error {
	switch {
	case r.err == nil:
		return r.apiErr
	case !r.ctxEnded:
		return &TransportError{Method: pc.method, Path: pc.path, Attempts: n, AttemptTimeout: pc.attemptLimit, Err: r.err}
	case lastErr != nil:
		return stopped(lastErr, r.err)
	}
	return pc.errorOf(r)
}

// stopped is the error of a call that ctx ended while it was retrying: the
// failure that made it retry, then why it stopped.
func stopped(lastErr, err error) error {
	return fmt.Errorf("%w; stopped retrying: %w", lastErr, err)
}

// send performs req and reads the whole (bounded) answer. resp is non-nil
// when a status line arrived, even if reading the body then failed.
func (c *Client) send(req *http.Request) (*http.Response, []byte, time.Duration, error) {
	c.requests.Add(1)
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, time.Since(start), err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody+1))
	dur := time.Since(start)
	if err != nil {
		return resp, nil, dur, fmt.Errorf("reading %d answer: %w", resp.StatusCode, err)
	}
	if len(b) > maxResponseBody {
		return resp, nil, dur, fmt.Errorf("%d answer is larger than %d bytes", resp.StatusCode, maxResponseBody)
	}
	return resp, b, dur, nil
}

// setAPIHeaders sets the headers every /api/ request carries.
func (c *Client) setAPIHeaders(req *http.Request, hasBody bool) {
	c.setAuth(req)
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set("Accept", "application/json")
	if hasBody {
		req.Header.Set("Content-Type", "application/json")
	}
}

func (c *Client) setAuth(req *http.Request) {
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	if c.orgID != "" {
		req.Header.Set(apitypes.HeaderOrgID, c.orgID)
	}
}

// decodeAnswer decodes a 2xx body into out, unwrapping {"data": ...} when
// envelope is set. Numbers in `any` fields stay json.Number so cursors keep
// their exact digits.
func decodeAnswer(body []byte, out any, envelope bool) error {
	if out == nil {
		return nil
	}
	if envelope {
		var env struct {
			Data json.RawMessage `json:"data"`
		}
		if err := unmarshal(body, &env); err != nil {
			return err
		}
		if len(env.Data) == 0 || string(env.Data) == "null" {
			return errors.New(`the answer has no "data"`)
		}
		body = env.Data
	}
	return unmarshal(body, out)
}

func unmarshal(b []byte, out any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(out)
}

// requireID returns a clear error when an identifier argument is empty.
func requireID(field, v string) error {
	if v == "" {
		return fmt.Errorf("%s must not be empty", field)
	}
	return nil
}

// waitTurn holds a request to a rate-limited endpoint until the shared
// limiter admits it; any request waits out a Retry-After pause.
func (c *Client) waitTurn(ctx context.Context, path string) error {
	if rateLimited(path) {
		return c.limiter.wait(ctx)
	}
	c.limiter.mu.Lock()
	until := c.limiter.until
	c.limiter.mu.Unlock()
	if d := time.Until(until); d > 0 {
		return sleep(ctx, d)
	}
	return nil
}
