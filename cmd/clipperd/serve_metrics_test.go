package main

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/metrics/metricstest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
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

// serveInProcess runs `clipperd serve args...` listening on 127.0.0.1:0
// (API and metrics) until the test ends, waits for its /healthz, and returns its log. The
// addresses it listens on are read back from the log (listenedAt): a port
// freed for the server to take again may be taken by another test first.
func serveInProcess(t *testing.T, args ...string) *lockedBuffer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	log := &lockedBuffer{}
	go func() {
		// Metrics on a port of its own too, unless args say otherwise: a
		// running demo holds the default one.
		done <- serve(ctx, append([]string{"--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--data", t.TempDir()}, args...), log)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	deadline := time.Now().Add(storetest.EventuallyBound) // a hang guard, as generous as the suite's
	for {
		select {
		case err := <-done:
			done <- err // for the cleanup
			t.Fatalf("serve ended: %v\n%s", err, log)
		default:
		}
		if apiAddr := listenedAt(log.String(), "clipperd listening"); apiAddr != "" {
			if resp, err := http.Get("http://" + apiAddr + "/healthz"); err == nil {
				_ = resp.Body.Close()
				return log
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("clipperd did not start serving:\n%s", log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// listenedAt is the addr of the last line of log whose message is msg (a
// log a restarted process appends to holds several), "" before there is
// one.
func listenedAt(log, msg string) string {
	all := regexp.MustCompile(`msg="`+regexp.QuoteMeta(msg)+`".* addr=(\S+)`).FindAllStringSubmatch(log, -1)
	if len(all) == 0 {
		return ""
	}
	return all[len(all)-1][1]
}

// --metrics-listen serves the metrics there, without the development key.
func TestServeMetricsListen(t *testing.T) {
	const key = "ck_serve_metrics_key_0123456789abcdef"
	t.Setenv(apiKeyEnv, key)
	log := serveInProcess(t, "--metrics-listen", "127.0.0.1:0")
	metricsAddr := listenedAt(log.String(), "metrics listening")
	if metricsAddr == "" || strings.HasSuffix(metricsAddr, ":0") {
		t.Fatalf("the log does not say where the metrics are (%q):\n%s", metricsAddr, log)
	}
	s := metricstest.Get(t, "http://"+metricsAddr+"/metrics")
	if _, ok := s.Value("clipperd_projects", "stage", "COMPLETE"); !ok {
		t.Errorf("clipperd_projects missing from the scrape:\n%s", s.Raw)
	}
	if strings.Contains(s.Raw, key) {
		t.Error("the scrape holds the development key")
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
