package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
)

// Dependencies says which of the database and the bucket answer
// (dependency.Health does): the gauge clipperd_dependency_up and /readyz.
type Dependencies interface {
	// Names are the dependencies watched ("database", "bucket").
	Names() []string
	// Up reports whether name answered its last call or probe.
	Up(name string) bool
	// Ready is nil while every one answers, else why not.
	Ready() error
}

// dependenciesCollector reports each dependency as 1 (answers) or 0.
type dependenciesCollector struct {
	read Dependencies
	up   *prometheus.Desc
}

func newDependenciesCollector(read Dependencies) *dependenciesCollector {
	return &dependenciesCollector{read: read, up: prometheus.NewDesc(prometheus.BuildFQName(namespace, "", "dependency_up"),
		"1 while the dependency (database, bucket) answers, 0 while its calls fail for want of an answer (they wait and retry meanwhile).",
		[]string{"dependency"}, nil)}
}

func (c *dependenciesCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.up }

func (c *dependenciesCollector) Collect(ch chan<- prometheus.Metric) {
	for _, name := range c.read.Names() {
		v := 0.0
		if c.read.Up(name) {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, v, name)
	}
}

// healthz answers "ok" while the process serves: the liveness check of a
// node without the API (a worker), where the API's /healthz is not served.
func healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok"))
}

// readyz answers "ok" while every dependency answers, else 503 saying
// which does not: a load balancer or an orchestrator holds traffic and
// work back from the node meanwhile, without restarting it.
func (m *Metrics) readyz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if m.deps != nil {
		if err := m.deps.Ready(); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(err.Error()))
			return
		}
	}
	_, _ = w.Write([]byte("ok"))
}
