// Package webhooktest is a webhook receiver for tests of clipperd's signed
// deliveries (conclusion actions, published posts): it records every
// request, refuses the first ones on demand, and checks signatures the way
// filled-gaps.md describes them, independently of package outbound.
package webhooktest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Request is one request the receiver got.
type Request struct {
	Body   []byte
	Header http.Header
}

// SignedWith reports whether the request's X-Svc-Signature is the lowercase
// hex HMAC-SHA256, keyed with key, of the raw body followed by X-Svc-Salt.
func (r Request) SignedWith(key string) bool {
	m := hmac.New(sha256.New, []byte(key))
	m.Write(r.Body)
	m.Write([]byte(r.Header.Get("X-Svc-Salt")))
	return r.Header.Get("X-Svc-Signature") == hex.EncodeToString(m.Sum(nil))
}

// Receiver is a running webhook receiver.
type Receiver struct {
	URL string

	mu       sync.Mutex
	requests []Request
	refuse   int
}

// New starts a receiver that answers the first refuse requests 503 and the
// others 204. It stops when the test ends.
func New(t testing.TB, refuse int) *Receiver {
	r := &Receiver{refuse: refuse}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.requests = append(r.requests, Request{Body: body, Header: req.Header.Clone()})
	refused := len(r.requests) <= r.refuse
	r.mu.Unlock()
	if refused {
		http.Error(w, "receiver down", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// Requests returns the requests received so far, in order.
func (r *Receiver) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Request(nil), r.requests...)
}

// Outcomes records the attempts a dispatcher or publish worker reports
// through its OnAttempt hook, as "kind outcome" strings in order.
type Outcomes struct {
	mu  sync.Mutex
	got []string
}

// Record is an OnAttempt hook.
func (o *Outcomes) Record(kind, outcome string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, kind+" "+outcome)
}

// List returns the attempts recorded so far.
func (o *Outcomes) List() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.got...)
}
