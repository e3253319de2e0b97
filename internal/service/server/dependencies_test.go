package server

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/miniotest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/metrics/metricstest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// TestReadyzWhileADependencyIsAway: a server over a PostgreSQL and a
// MinIO of the test's own answers /readyz "ok" on the API and on the
// metrics listener while both answer; with the database stopped, then
// with the bucket stopped, both answer 503 naming it, the gauge
// clipperd_dependency_up of it is 0 (the other's 1), and an ERROR line
// says what is down; once it is back, 200 and 1 again. /healthz, the
// liveness check, answers all along.
func TestReadyzWhileADependencyIsAway(t *testing.T) {
	cluster := storetest.StartCluster(t)
	minioSrv := miniotest.Start(t)
	bucket := minioSrv.NewBucket(t)
	minioSrv.Env(t)
	var logs syncBuffer
	srv := startServer(t, Config{Database: cluster.URL, Media: minioSrv.URL(bucket, "clipperd"), MetricsListen: "127.0.0.1:0",
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	metricsURL := "http://" + srv.MetricsAddr()
	c := newClient(t, srv, "")

	ready := func(down string) {
		t.Helper()
		resp, data := c.do(http.MethodGet, "/readyz", nil)
		mresp, mdata := c.do(http.MethodGet, metricsURL+"/readyz", nil)
		for _, got := range []struct {
			where string
			code  int
			body  string
		}{{"API", resp.StatusCode, string(data)}, {"metrics listener", mresp.StatusCode, string(mdata)}} {
			switch {
			case down == "" && (got.code != http.StatusOK || got.body != "ok"):
				t.Errorf("/readyz on the %s: %d %s, want 200 ok", got.where, got.code, got.body)
			case down != "" && (got.code != http.StatusServiceUnavailable || !strings.Contains(got.body, "the "+down+" is unreachable")):
				t.Errorf("/readyz on the %s: %d %s, want 503 naming the %s", got.where, got.code, got.body, down)
			}
		}
		for _, url := range []string{"/healthz", metricsURL + "/healthz"} {
			if resp, data := c.do(http.MethodGet, url, nil); resp.StatusCode != http.StatusOK && down != "database" {
				t.Errorf("GET %s: %d %s, want 200", url, resp.StatusCode, data)
			}
		}
	}
	gauges := func(database, bucket float64) {
		t.Helper()
		scrapeUntil(t, metricsURL+"/metrics", func(s metricstest.Scrape) bool {
			db, okDB := s.Value("clipperd_dependency_up", "dependency", "database")
			b, okB := s.Value("clipperd_dependency_up", "dependency", "bucket")
			return okDB && okB && db == database && b == bucket
		})
	}

	// logged waits for the ERROR line saying that down is unreachable.
	logged := func(down string) {
		t.Helper()
		for deadline := time.Now().Add(publishWait); !strings.Contains(logs.String(), `level=ERROR msg="`+down+` unreachable`); {
			if time.Now().After(deadline) {
				t.Fatalf("no ERROR line says the %s is unreachable:\n%s", down, logs.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	gauges(1, 1)
	ready("")

	cluster.Stop(t)
	gauges(0, 1) // a call or the probe found it away
	ready("database")
	logged("database")
	cluster.Start(t)
	gauges(1, 1)
	ready("")

	minioSrv.Stop()
	gauges(1, 0)
	ready("bucket")
	logged("bucket")
	minioSrv.Restart(t)
	gauges(1, 1)
	ready("")
}
