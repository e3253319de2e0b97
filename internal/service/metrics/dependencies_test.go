package metrics

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/metrics/metricstest"
)

// TestDependenciesOnTheListener: the listener's /readyz is "ok" and the
// gauge 1 while the dependencies answer; a bucket whose calls fail makes
// /readyz a 503 naming it and its gauge 0, the database's staying 1;
// /healthz answers "ok" throughout.
func TestDependenciesOnTheListener(t *testing.T) {
	health := dependency.NewHealth(nil)
	for _, name := range []string{dependency.Database, dependency.Bucket} {
		health.Watch(name, func(context.Context) error { return nil })
	}
	ep := listen(t, New(Config{Dependencies: health}))
	base := "http://" + ep.Addr()
	want := func(db, bucket float64, readyCode int, readyBody string) {
		t.Helper()
		s := metricstest.Get(t, base+"/metrics")
		for name, v := range map[string]float64{dependency.Database: db, dependency.Bucket: bucket} {
			if got, ok := s.Value("clipperd_dependency_up", "dependency", name); !ok || got != v {
				t.Errorf("clipperd_dependency_up{dependency=%q} = %v (present %v), want %v", name, got, ok, v)
			}
		}
		for path, code := range map[string]int{"/readyz": readyCode, "/healthz": http.StatusOK} {
			resp, err := http.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != code || (path == "/readyz" && !strings.Contains(string(body), readyBody)) {
				t.Errorf("GET %s: %d %s, want %d", path, resp.StatusCode, body, code)
			}
		}
	}
	want(1, 1, http.StatusOK, "ok")
	health.Failed(dependency.Bucket, errors.New("dial tcp 127.0.0.1:9000: connection refused"))
	want(1, 0, http.StatusServiceUnavailable, "the bucket is unreachable (dial tcp 127.0.0.1:9000: connection refused)")
	health.Succeeded(dependency.Bucket)
	want(1, 1, http.StatusOK, "ok")
}
