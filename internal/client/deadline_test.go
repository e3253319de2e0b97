package client

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// silentListener accepts connections and never answers, as a hung server
// does; it counts the connections.
func silentListener(t *testing.T) (string, func() int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return "http://" + ln.Addr().String(), func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(conns)
	}
}

// A GET to a server that accepts the connection but never answers ends after
// each attempt's deadline and the retries, not with the caller's (here
// absent) deadline: a read cannot hang.
func TestGetAgainstASilentServerEndsAtTheReadTimeout(t *testing.T) {
	base, accepted := silentListener(t)
	c := newTestClient(t, base, func(cfg *Config) { cfg.ReadTimeout = 20 * time.Millisecond })
	_, err := c.GetProject(context.Background(), "p1")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the attempts' deadline, got %v", err)
	}
	if n := accepted(); n != fastPolicy.maxAttempts {
		t.Fatalf("connections %d, want one per attempt (%d)", n, fastPolicy.maxAttempts)
	}
	// The caller's own timeout had not ended: the error says what did.
	var te *TransportError
	if !errors.As(err, &te) || te.Attempts != fastPolicy.maxAttempts ||
		!strings.Contains(err.Error(), "no answer within the 20ms each attempt waits") {
		t.Fatalf("want a transport error naming the attempts and their deadline, got %v", err)
	}
}

func TestReadTimeoutDefaultsAndValidation(t *testing.T) {
	c := newTestClient(t, "http://svc.test", nil)
	if c.readLimit != DefaultReadTimeout {
		t.Fatalf("read timeout %s, want %s", c.readLimit, DefaultReadTimeout)
	}
	if _, err := New(Config{APIKey: "k", ReadTimeout: -time.Second}); err == nil {
		t.Fatal("a negative read timeout was accepted")
	}
	if _, err := New(Config{APIKey: "k", MaxConcurrentProjects: -1}); err == nil {
		t.Fatal("a negative max_concurrent_projects was accepted")
	}
}
