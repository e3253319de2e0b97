package pipeline

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// trickle serves a link that sends 10 bytes every period until the client
// goes, as the probe's slow sources did (10 bytes every 5 s).
func trickle(t *testing.T, period time.Duration) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "video/mp4")
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			if _, err := w.Write([]byte("0123456789")); err != nil {
				return
			}
			_ = http.NewResponseController(w).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A link below the minimum rate fails at the end of the first window in
// which it averaged less, permanently, naming the rule and its flag; one
// under no floor ends at the import deadline, naming that.
func TestImportLimitsEndATrickle(t *testing.T) {
	srv := trickle(t, 50*time.Millisecond)
	e := newEnv(t)
	e.cfg.AllowPrivateImports = true
	e.cfg.ImportMinRate, e.cfg.ImportRateWindow = 1000, 300*time.Millisecond
	slow, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	j := e.importJob(srv.URL+"/talk.mp4", nil)
	err = slow.importStage(context.Background(), j)
	if err == nil || !isPermanent(err) || !strings.Contains(err.Error(), "below the import minimum of 1000 B/s averaged over 300ms (--import-min-rate)") {
		t.Errorf("trickle under a floor: %v (permanent %v), want a permanent failure naming --import-min-rate", err, isPermanent(err))
	}

	e.cfg.ImportMinRate, e.cfg.ImportTimeout = -1, 400*time.Millisecond
	late, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	j = e.importJob(srv.URL+"/talk.mp4", nil)
	err = late.importStage(context.Background(), j)
	if err == nil || !isPermanent(err) || !strings.Contains(err.Error(), "took longer than 400ms, the import deadline (--import-timeout)") {
		t.Errorf("trickle past the deadline: %v (permanent %v), want a permanent failure naming --import-timeout", err, isPermanent(err))
	}

	// A source that keeps the pace imports under both limits.
	e.cfg.ImportMinRate, e.cfg.ImportTimeout = 1000, time.Minute
	fine, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	j = e.importJob(serveFile(t, testVideo(t)).URL+"/talk.mp4", nil)
	if err := fine.importStage(context.Background(), j); err != nil {
		t.Errorf("a source at full speed: %v", err)
	}
}

// A run whose source trickles ends STALLED for good, not retried, with its
// credits refunded: a retry would hold a worker as long again.
func TestTrickleStallsOnceWithoutRetry(t *testing.T) {
	srv := trickle(t, 50*time.Millisecond)
	e := newEnv(t)
	e.cfg.AllowPrivateImports = true
	e.cfg.ImportMinRate, e.cfg.ImportRateWindow = 1000, 300*time.Millisecond
	e.runner()
	id := e.create(apitypes.CreateProjectRequest{VideoURL: srv.URL + "/talk.mp4"})
	p := e.waitDone(id)
	if p.Stage != apitypes.StageStalled || p.FailureStalls != 1 || !p.RetryAt.IsZero() || p.Error == nil || !strings.Contains(*p.Error, "--import-min-rate") {
		t.Fatalf("project %s: stage %s, failureStalls %d, retryAt %v, error %v; want STALLED once, no retry, naming --import-min-rate",
			id, p.Stage, p.FailureStalls, p.RetryAt, deref(p.Error))
	}
	used, err := e.st.CreditsUsed(context.Background(), testOrg)
	if err != nil || used != 0 {
		t.Errorf("credits used %d (%v), want 0: a failed import is refunded", used, err)
	}
}
