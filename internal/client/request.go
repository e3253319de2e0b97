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

// call sends ac through the shared rate limiter with the retry policy:
//   - GET and DELETE are sent again after network errors and 5xx, up to
//     policy.maxAttempts attempts;
//   - a POST is sent again only when the server certainly did not act on it:
//     after a 429, or when the connection was refused / never dialed;
//   - a 429 waits Retry-After (holding back every client of the same key) or
//     backs off; a 429 with X-Cap-Reason: concurrent (project create refused
//     because too many projects run) is retried with a 30s..2m backoff, or at
//     once when a wait in this process sees a project of the key finish, until
//     it succeeds or ctx ends;
//   - 403 monthly cap and every other 4xx are returned at once.
func (c *Client) call(ctx context.Context, ac apiCall) error {
	var payload []byte
	if ac.body != nil {
		var err error
		if payload, err = json.Marshal(ac.body); err != nil {
			return fmt.Errorf("%s %s: encoding request body: %w", ac.method, ac.path, err)
		}
	}
	target := c.baseURL + ac.path
	logPath := ac.path
	if len(ac.query) > 0 {
		target += "?" + ac.query.Encode()
		logPath += "?" + ac.query.Encode()
	}
	var failures, limited, capRefusals int
	var lastErr error // why the previous attempt failed, kept if ctx ends before the next
	for attempt := 1; ; attempt++ {
		if attempt > 1 {
			c.retries.Add(1)
		}
		if err := c.waitTurn(ctx, ac.path); err != nil {
			if lastErr != nil {
				return fmt.Errorf("%w; stopped retrying: %w", lastErr, err)
			}
			return fmt.Errorf("%s %s: waiting for the rate limiter: %w", ac.method, ac.path, err)
		}
		var body io.Reader
		if payload != nil {
			body = bytes.NewReader(payload)
		}
		req, err := http.NewRequestWithContext(ctx, ac.method, target, body)
		if err != nil {
			return fmt.Errorf("%s %s: building request: %w", ac.method, ac.path, err)
		}
		c.setAPIHeaders(req, payload != nil)
		c.trace(ctx, "clipper API request", map[string]any{
			"method": ac.method, "path": logPath, "attempt": attempt,
			"headers": c.headerFields(req.Header), "body": bodyField(payload),
		})

		resp, respBody, dur, err := c.send(req)
		if err != nil {
			c.debug(ctx, "clipper API request failed", map[string]any{
				"method": ac.method, "path": logPath, "attempt": attempt,
				"duration_ms": dur.Milliseconds(), "error": err,
			})
			if ctx.Err() != nil {
				if lastErr != nil {
					return fmt.Errorf("%w; stopped retrying: %w", lastErr, err)
				}
				return fmt.Errorf("%s %s: %w", ac.method, ac.path, err)
			}
			failures++
			// A body cut off after the status line arrived means the server
			// acted; only idempotent methods may go again then.
			retryable := idempotent(ac.method) || (resp == nil && notSent(err))
			if !retryable || failures >= c.policy.maxAttempts {
				return fmt.Errorf("%s %s: after %d attempt(s): %w", ac.method, ac.path, attempt, err)
			}
			lastErr = fmt.Errorf("%s %s: %w", ac.method, ac.path, err)
			if err := sleep(ctx, backoff(failures, c.policy.base, c.policy.max)); err != nil {
				return fmt.Errorf("%w; stopped retrying: %w", lastErr, err)
			}
			continue
		}
		c.debug(ctx, "clipper API response", map[string]any{
			"method": ac.method, "path": logPath, "attempt": attempt,
			"status": resp.StatusCode, "duration_ms": dur.Milliseconds(),
		})
		c.trace(ctx, "clipper API response body", map[string]any{
			"method": ac.method, "path": logPath, "status": resp.StatusCode, "body": bodyField(respBody),
		})

		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			if err := decodeAnswer(respBody, ac.out, ac.envelope); err != nil {
				return fmt.Errorf("%s %s: decoding %d answer: %w", ac.method, ac.path, resp.StatusCode, err)
			}
			return nil
		}
		apiErr := parseError(ac.method, ac.path, resp, respBody)
		var ae *APIError
		errors.As(apiErr, &ae)
		lastErr = apiErr

		switch {
		case resp.StatusCode == http.StatusTooManyRequests && ae.CapReason == apitypes.CapReasonConcurrent:
			c.limited.Add(1)
			c.concurrent.Add(1)
			capRefusals++
			d := max(backoff(capRefusals, c.policy.capBase, c.policy.capMax), ae.RetryAfter)
			c.debug(ctx, "clipper concurrent project cap reached; retrying", map[string]any{
				"method": ac.method, "path": logPath, "refusals": capRefusals, "wait_ms": d.Milliseconds(),
			})
			// Retry after the backoff, or as soon as this process sees one of
			// the key's projects finish, whichever comes first.
			wake, cancelWait := c.limiter.waitForSlot()
			err := sleepOrWake(ctx, d, wake)
			cancelWait()
			if err != nil {
				return fmt.Errorf("%w; stopped retrying: %w", apiErr, err)
			}
		case resp.StatusCode == http.StatusTooManyRequests:
			c.limited.Add(1)
			limited++
			if limited > c.policy.max429 {
				return apiErr
			}
			if ae.RetryAfter > 0 {
				// The key is over its rate for every client in the process:
				// hold them all back, then go through the limiter again.
				c.limiter.pause(ae.RetryAfter)
			} else if err := sleep(ctx, backoff(limited, c.policy.base, c.policy.max)); err != nil {
				return fmt.Errorf("%w; stopped retrying: %w", apiErr, err)
			}
		case resp.StatusCode >= 500 && idempotent(ac.method):
			failures++
			if failures >= c.policy.maxAttempts {
				return apiErr
			}
			if err := sleep(ctx, backoff(failures, c.policy.base, c.policy.max)); err != nil {
				return fmt.Errorf("%w; stopped retrying: %w", apiErr, err)
			}
		default:
			return apiErr
		}
	}
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
