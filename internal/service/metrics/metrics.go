// Package metrics is what clipperd tells its monitoring: the Prometheus
// metrics of one server, in a registry of its own (several servers in one
// process do not collide), and the listener that serves them apart from
// the API. The other packages report through hooks in their Configs
// (pipeline.Config.OnStageLeft, the OnThrottled of api and gallery, the OnAttempt of
// outbound and publish), which the server wires to the methods here; what
// the store holds is read at each scrape (statsCollector).
//
// No label ever holds a request's path, an id, a key or a URL: routes are
// the mux's patterns and every other label comes from a short fixed list,
// so the series stay few and nothing secret is exposed.
package metrics

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// namespace prefixes every metric of clipperd.
const namespace = "clipperd"

// StatsReader reads what the store holds (store.Store does).
type StatsReader interface {
	Stats(ctx context.Context) (store.Stats, error)
}

// Config configures Metrics.
type Config struct {
	// Stats is read at each scrape for the projects by stage, the queue,
	// credits and storage; nil leaves those out.
	Stats StatsReader
	// Jobs is read at each scrape for the background jobs by queue and
	// state; nil leaves them out.
	Jobs JobCounter
	// Dependencies feeds clipperd_dependency_up and the listener's
	// /readyz; nil leaves the gauge out and /readyz always "ok".
	Dependencies Dependencies
	Logger       *slog.Logger // nil = discard
}

// Metrics holds one server's metrics. Its methods are safe for concurrent use.
type Metrics struct {
	reg  *prometheus.Registry
	log  *slog.Logger
	deps Dependencies // nil: none watched

	requests   *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	throttled  *prometheus.CounterVec
	stages     *prometheus.HistogramVec
	firstClip  prometheus.Histogram
	actions    *prometheus.CounterVec
	published  *prometheus.CounterVec
	handlerErr prometheus.Counter
}

// Buckets of the histograms, in seconds: requests from a JSON answer to a
// long download; stages from a moment to an hour of rendering or waiting.
var (
	requestBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}
	stageBuckets   = []float64{.1, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600}
)

// The label values the hooks report, which metrics may not import the
// packages of: api's and gallery's throttle reasons, the kinds of
// conclusion actions (lower case), the outcomes of outbound's and
// publish's attempts and publish's destination kinds. The server's tests
// check them against those packages' constants.
var (
	throttleReasons     = []string{"rate", "post_rate", apitypes.CapReasonConcurrent, "login", "auth"}
	actionKinds         = []string{strings.ToLower(apitypes.ActionWebhook), strings.ToLower(apitypes.ActionEmail)}
	attemptOutcomes     = []string{"delivered", "will_retry", "gave_up"}
	publishDestinations = []string{store.PublishToDir, "webhook"}
)

// New makes the metrics of one server in a registry of their own, with the
// Go runtime's and the process's.
func New(cfg Config) *Metrics {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &Metrics{
		reg:  prometheus.NewRegistry(),
		log:  log,
		deps: cfg.Dependencies,
		requests: counterVec("http_requests_total",
			"HTTP requests answered on the public listener, by route (the pattern that took the request, \"other\" when none did) and status code.",
			"route", "code"),
		latency: histogramVec("http_request_duration_seconds",
			"Time from a request's arrival to the end of its answer, by route.", requestBuckets, "route"),
		throttled: counterVec("throttled_requests_total",
			"Requests answered 429, by reason: rate (the per-key rate limit), post_rate (that of the posting endpoints), concurrent (an organization's projects in flight), login (a client's failed gallery logins) or auth (a client's failed API keys).",
			"reason"),
		stages: histogramVec("pipeline_stage_duration_seconds",
			"Time projects spent in a stage, observed when a run moves them on or stalls them (QUEUED: the wait for a worker).",
			stageBuckets, "stage"),
		firstClip: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: namespace, Name: "first_clip_seconds",
			Help:    "Time from a project's creation to the first of its clips rendered, observed once per run (a retried project's later run again).",
			Buckets: stageBuckets}),
		actions: counterVec("action_delivery_attempts_total",
			"Attempts at delivering conclusion actions, by kind (webhook, email) and outcome (delivered, will_retry, gave_up).",
			"kind", "outcome"),
		published: counterVec("publish_attempts_total",
			"Attempts at publishing posts, by destination kind (dir, webhook) and outcome (delivered, will_retry, gave_up).",
			"destination", "outcome"),
		handlerErr: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "metrics_scrape_errors_total",
			Help: "Scrapes in which a metric could not be read (the store did not answer); the log says why.",
		}),
	}
	// The stages a run leaves (a waiting project's run starts from QUEUED),
	// present before the first project.
	for _, stage := range apitypes.StagesWhere(func(s apitypes.Stage) bool { return s == apitypes.StageQueued || s.Processing() }) {
		m.stages.WithLabelValues(string(stage))
	}
	// The fixed label combinations, present at 0 before anything happened:
	// a rate over them, or an alert, has a series from the start.
	for _, reason := range throttleReasons {
		m.throttled.WithLabelValues(reason)
	}
	for _, outcome := range attemptOutcomes {
		for _, kind := range actionKinds {
			m.actions.WithLabelValues(kind, outcome)
		}
		for _, dest := range publishDestinations {
			m.published.WithLabelValues(dest, outcome)
		}
	}
	m.reg.MustRegister(m.requests, m.latency, m.throttled, m.stages, m.firstClip, m.actions, m.published, m.handlerErr,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if cfg.Stats != nil {
		m.reg.MustRegister(newStatsCollector(cfg.Stats))
	}
	if cfg.Jobs != nil {
		m.reg.MustRegister(newJobsCollector(cfg.Jobs))
	}
	if cfg.Dependencies != nil {
		m.reg.MustRegister(newDependenciesCollector(cfg.Dependencies))
	}
	return m
}

func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help}, labels)
}

func histogramVec(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: name, Help: help, Buckets: buckets}, labels)
}

// Handler serves the registry in the Prometheus text format (or OpenMetrics
// when asked). A metric that cannot be read is left out of the scrape and
// logged; the others are still served.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorLog:            scrapeLog{m},
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: 4,
		Timeout:             scrapeTimeout,
	})
}

// scrapeLog logs the errors of a scrape and counts them.
type scrapeLog struct{ m *Metrics }

func (l scrapeLog) Println(v ...any) {
	l.m.handlerErr.Inc()
	l.m.log.Warn("metrics scrape", "err", strings.TrimSpace(fmt.Sprintln(v...)))
}

// Throttled counts a 429 (api.Config.OnThrottled, gallery.Config.OnThrottled).
func (m *Metrics) Throttled(reason string) { m.throttled.WithLabelValues(reason).Inc() }

// StageLeft observes the time a project spent in stage
// (pipeline.Config.OnStageLeft).
func (m *Metrics) StageLeft(stage apitypes.Stage, took time.Duration) {
	m.stages.WithLabelValues(string(stage)).Observe(took.Seconds())
}

// FirstClip observes the time from a project's creation to its first clip
// rendered (pipeline.Config.OnFirstClip).
func (m *Metrics) FirstClip(sinceCreate time.Duration) { m.firstClip.Observe(sinceCreate.Seconds()) }

// ActionAttempt counts an attempt at a conclusion action of kind WEBHOOK or
// EMAIL (outbound.Config.OnAttempt).
func (m *Metrics) ActionAttempt(kind, outcome string) {
	m.actions.WithLabelValues(strings.ToLower(kind), outcome).Inc()
}

// PublishAttempt counts an attempt at publishing a post to a destination
// of kind dir or webhook (publish.WorkerConfig.OnAttempt).
func (m *Metrics) PublishAttempt(destination, outcome string) {
	m.published.WithLabelValues(destination, outcome).Inc()
}
