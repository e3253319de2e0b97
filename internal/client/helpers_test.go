package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fastPolicy keeps retry tests quick: same shape as production, millisecond waits.
var fastPolicy = retryPolicy{
	maxAttempts: 5,
	max429:      8,
	base:        time.Millisecond,
	max:         4 * time.Millisecond,
	capBase:     time.Millisecond,
	capMax:      4 * time.Millisecond,
}

// testKey is an API key of the live form, unique to t.
func testKey(t *testing.T) string {
	return "sk-live-" + strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()) + "-9f8e7d6c5b4a"
}

// newTestClient builds a client for base with a high rate and fast backoff.
func newTestClient(t *testing.T, base string, mod func(*Config)) *Client {
	t.Helper()
	cfg := Config{BaseURL: base, APIKey: testKey(t), RequestsPerMinute: 600000}
	if mod != nil {
		mod(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	c.policy = fastPolicy
	return c
}

// sharing sets a client's Shared, for tests of what clients share.
func sharing(s *Shared) func(*Config) {
	return func(c *Config) { c.Shared = s }
}

// writeJSON answers v with status. Unless the handler said otherwise, an
// answer other than a 429 says the rate window has room, as clipperd's do:
// a service that says nothing of its window is sent one request at a time
// (windowGate), and the tests that need several in flight would wait on
// each other. quietJSON answers without it.
func writeJSON(w http.ResponseWriter, status int, v any) {
	if h := w.Header(); status != http.StatusTooManyRequests && h.Get("X-RateLimit-Remaining") == "" {
		h.Set("X-RateLimit-Remaining", "1000")
	}
	quietJSON(w, status, v)
}

// quietJSON answers v with status, saying nothing of the rate window.
func quietJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// captureLogger records every log line as text.
type captureLogger struct {
	mu    sync.Mutex
	lines []string
}

func (l *captureLogger) Warn(_ context.Context, msg string, fields map[string]any) {
	l.add("WARN", msg, fields)
}

func (l *captureLogger) Debug(_ context.Context, msg string, fields map[string]any) {
	l.add("DEBUG", msg, fields)
}

func (l *captureLogger) Trace(_ context.Context, msg string, fields map[string]any) {
	l.add("TRACE", msg, fields)
}

func (l *captureLogger) add(level, msg string, fields map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf("%s %s %v", level, msg, fields))
}

func (l *captureLogger) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// counter counts requests a test server saw, safely across handler goroutines.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) inc(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[key]++
	return c.n[key]
}

func (c *counter) get(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[key]
}

// dropConnection reads the request body, then closes the TCP connection
// without answering, as a server crashing after it acted would.
func dropConnection(t *testing.T, w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		t.Error("response writer cannot hijack")
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	_ = conn.Close()
}

// refusedURL is an http address on which nothing listens: connecting to it is
// refused, so a request there certainly never reached a server.
func refusedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return "http://" + addr
}

// inProcess is an HTTP client that serves every request with h in the
// caller's goroutine, without a socket: a test in a synctest bubble, where
// a goroutine blocked on the network would keep the bubble's clock still,
// talks to its service through it.
func inProcess(h http.Handler) *http.Client {
	return &http.Client{Transport: handlerTransport{h}}
}

type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}
