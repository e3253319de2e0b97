package server

import (
	"context"
	"log/slog"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/metrics"
)

// startMetrics makes the server's metrics, fed by the store and by the
// hooks Start wires, and serves them on cfg.MetricsListen when set: a
// listener of their own, never the API's, so they need no key.
func (s *Server) startMetrics(cfg Config, logger *slog.Logger) error {
	s.metrics = metrics.New(metrics.Config{Stats: s.store, Jobs: jobCounter{s.jobs}, Dependencies: s.health, Logger: logger.With("component", "metrics")})
	if cfg.MetricsListen == "" {
		return nil
	}
	ep, err := s.metrics.Listen(cfg.MetricsListen)
	if err != nil {
		return err
	}
	s.metricsAt = ep
	return nil
}

// jobCounter reads the job system's counts for the metrics.
type jobCounter struct{ jobs *jobs.Jobs }

func (c jobCounter) JobCounts(ctx context.Context) ([]metrics.JobCount, error) {
	counts, err := c.jobs.Counts(ctx)
	out := make([]metrics.JobCount, 0, len(counts))
	for _, n := range counts {
		out = append(out, metrics.JobCount(n))
	}
	return out, err
}

// MetricsAddr is the address GET /metrics is served on, e.g.
// "127.0.0.1:9787"; "" when Config.MetricsListen was empty.
func (s *Server) MetricsAddr() string {
	if s.metricsAt == nil {
		return ""
	}
	return s.metricsAt.Addr()
}
