package metrics

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency"
)

// JobCount is how many jobs of the job system's queue are in a state.
type JobCount struct {
	Queue, State string
	Jobs         int64
}

// JobCounter reads the job system's jobs by queue and state (the server
// adapts package jobs to it).
type JobCounter interface {
	JobCounts(ctx context.Context) ([]JobCount, error)
}

// jobsCollector reports the job system's jobs by queue and state, read at
// each scrape. Both labels come from fixed sets: the queues clipperd
// declares and River's job states.
type jobsCollector struct {
	read JobCounter
	jobs *prometheus.Desc
}

func newJobsCollector(read JobCounter) *jobsCollector {
	return &jobsCollector{read: read, jobs: prometheus.NewDesc(prometheus.BuildFQName(namespace, "", "jobs"),
		"Background jobs by queue and state (available, scheduled, running, retryable, completed, discarded, cancelled); completed and discarded ones are kept a while, then deleted.",
		[]string{"queue", "state"}, nil)}
}

func (c *jobsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.jobs }

func (c *jobsCollector) Collect(ch chan<- prometheus.Metric) {
	// Once: a database away leaves the metric out of this scrape at once
	// (clipperd_dependency_up says why) instead of waiting on its retries.
	ctx, cancel := context.WithTimeout(dependency.Once(context.Background()), scrapeTimeout)
	defer cancel()
	counts, err := c.read.JobCounts(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.jobs, err)
		return
	}
	for _, n := range counts {
		ch <- prometheus.MustNewConstMetric(c.jobs, prometheus.GaugeValue, float64(n.Jobs), n.Queue, n.State)
	}
}
