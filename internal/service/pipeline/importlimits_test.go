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
	t.Parallel()
	slow := trickle(t, 50*time.Millisecond).URL + "/talk.mp4"
	fast := serveFile(t, testVideo(t)).URL + "/talk.mp4"
	e := newEnv(t)
	e.cfg.AllowPrivateImports = true
	e.cfg.ImportRateWindow = 300 * time.Millisecond
	for _, tc := range []struct {
		name, url string
		minRate   int64
		timeout   time.Duration
		want      string // "": imported
	}{
		{"trickle under a floor", slow, 1000, time.Minute, "below the import minimum of 1000 B/s averaged over 300ms (--import-min-rate)"},
		{"trickle past the deadline", slow, -1, 400 * time.Millisecond, "took longer than 400ms, the import deadline (--import-timeout)"},
		{"a source at full speed", fast, 1000, time.Minute, ""},
	} {
		e.cfg.ImportMinRate, e.cfg.ImportTimeout = tc.minRate, tc.timeout
		r, err := e.newRunner()
		if err != nil {
			t.Fatal(err)
		}
		err = r.importStage(context.Background(), e.importJob(tc.url, nil))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !isPermanent(err) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v (permanent %v), want a permanent failure with %q", tc.name, err, isPermanent(err), tc.want)
		}
	}
}

// A run whose source trickles ends STALLED for good, not retried, with its
// credits refunded: a retry would hold a worker as long again.
func TestTrickleStallsOnceWithoutRetry(t *testing.T) {
	t.Parallel()
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
