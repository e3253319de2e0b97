package main

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/metrics/metricstest"
)

// lockedBuffer is a log sink safe to read while the server writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serveInProcess runs `clipperd serve args...` with a free --listen
// address until the test ends, waits for its /healthz, and returns its log.
func serveInProcess(t *testing.T, args ...string) *lockedBuffer {
	t.Helper()
	apiAddr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	log := &lockedBuffer{}
	go func() {
		done <- serve(ctx, append([]string{"--listen", apiAddr, "--data", t.TempDir()}, args...), log)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case err := <-done:
			done <- err // for the cleanup
			t.Fatalf("serve ended: %v\n%s", err, log)
		default:
		}
		if resp, err := http.Get("http://" + apiAddr + "/healthz"); err == nil {
			_ = resp.Body.Close()
			return log
		}
		if time.Now().After(deadline) {
			t.Fatal("clipperd did not start serving")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// --metrics-listen serves the metrics there, without the development key.
func TestServeMetricsListen(t *testing.T) {
	const key = "ck_serve_metrics_key"
	t.Setenv(apiKeyEnv, key)
	metricsAddr := freeAddr(t)
	log := serveInProcess(t, "--metrics-listen", metricsAddr)
	s := metricstest.Get(t, "http://"+metricsAddr+"/metrics")
	if _, ok := s.Value("clipperd_projects", "stage", "COMPLETE"); !ok {
		t.Errorf("clipperd_projects missing from the scrape:\n%s", s.Raw)
	}
	if strings.Contains(s.Raw, key) {
		t.Error("the scrape holds the development key")
	}
	if !strings.Contains(log.String(), "metrics listening") {
		t.Errorf("the log does not say where the metrics are:\n%s", log)
	}
}

// --metrics-listen off, or "", serves no metrics.
func TestServeMetricsOff(t *testing.T) {
	for _, flag := range []string{"off", ""} {
		if log := serveInProcess(t, "--metrics-listen", flag).String(); strings.Contains(log, "metrics listening") {
			t.Errorf("--metrics-listen %q: metrics served:\n%s", flag, log)
		}
	}
}
