package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// scrapeTimeout bounds a scrape, and so the store's reads in it.
const scrapeTimeout = 10 * time.Second

// statsCollector reports what the store holds, read at each scrape: the
// projects by stage (every organization summed: organizations are made by
// keys, so their number has no bound a label could take), the queue,
// this month's credits and the bytes stored.
type statsCollector struct {
	read                                   StatsReader
	projects, queue, credits, disk, pieces *prometheus.Desc
}

// pieceKinds and pieceStates are the label values of clipperd_pieces, each
// reported (at 0 when there is none) so a rate or an alert has a series
// from the start; the server's tests check the kinds against the
// pipeline's.
var (
	pieceKinds  = []string{"transcribe", "render"}
	pieceStates = []store.PieceState{store.PiecePending, store.PieceRunning, store.PieceDone, store.PieceFailed}
)

func newStatsCollector(read StatsReader) *statsCollector {
	name := func(n string) string { return prometheus.BuildFQName(namespace, "", n) }
	return &statsCollector{
		read: read,
		projects: prometheus.NewDesc(name("projects"),
			"Projects in each stage, of every organization.", []string{"stage"}, nil),
		queue: prometheus.NewDesc(name("pipeline_queue_depth"),
			"Projects waiting to be processed (PENDING or QUEUED), of every organization.", nil, nil),
		credits: prometheus.NewDesc(name("credits_used"),
			"Credits used in the current credit month (UTC) by every organization; refunds lower it, and it starts again at 0 each month.", nil, nil),
		disk: prometheus.NewDesc(name("storage_bytes"),
			"Bytes stored, as the organizations' storage is counted: uploads no project holds (kind uploads), projects' sources and renders (kind projects), published copies of clips where they hold bytes of their own (kind posts: on a bucket, not on a directory, whose copies are hard links).",
			[]string{"kind"}, nil),
		pieces: prometheus.NewDesc(name("pieces"),
			"Pieces of projects' runs (transcription chunks, clip renders) by kind and state (PENDING, RUNNING, DONE, FAILED), of every organization; a run's pieces are deleted when it completes.",
			[]string{"kind", "state"}, nil),
	}
}

func (c *statsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.projects, c.queue, c.credits, c.disk, c.pieces} {
		ch <- d
	}
}

func (c *statsCollector) Collect(ch chan<- prometheus.Metric) {
	// Once: a database away leaves the metric out of this scrape at once
	// (clipperd_dependency_up says why) instead of waiting on its retries.
	ctx, cancel := context.WithTimeout(dependency.Once(context.Background()), scrapeTimeout)
	defer cancel()
	st, err := c.read.Stats(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.projects, err)
		return
	}
	gauge := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v), labels...)
	}
	var waiting int64
	for _, stage := range apitypes.Stages() {
		n := st.ProjectsByStage[stage]
		gauge(c.projects, n, string(stage))
		if stage.Waiting() {
			waiting += n
		}
	}
	gauge(c.queue, waiting)
	gauge(c.credits, st.CreditsUsed)
	gauge(c.disk, st.UploadBytes, "uploads")
	gauge(c.disk, st.ProjectBytes, "projects")
	gauge(c.disk, st.PostBytes, "posts")
	pieces := map[[2]string]int64{}
	for _, n := range st.Pieces {
		pieces[[2]string{n.Kind, string(n.State)}] += n.N
	}
	for _, kind := range pieceKinds {
		for _, state := range pieceStates {
			gauge(c.pieces, pieces[[2]string{kind, string(state)}], kind, string(state))
		}
	}
}
