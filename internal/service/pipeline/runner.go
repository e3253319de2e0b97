// Package pipeline turns a queued project into clips: IMPORT, CURATE, REFINE,
// RENDER and UPLOAD run as plain functions over a project (machine.go), the
// Runner feeds projects to a few workers, recovers projects a dead process
// left in flight, and retries transient stalls with backoff.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/medialink"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/scratch"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

// DeliveryEnqueuer gives a new delivery its job in the job system, in the
// store transaction that stores it (outbound.Dispatcher is one).
type DeliveryEnqueuer interface {
	Enqueue(d *store.Delivery) store.TxHook
}

// Config configures a Runner.
type Config struct {
	Store *store.Store
	// Media holds the sources, renders and captions (blob.MediaKey) and
	// the uploads the projects import.
	Media blob.Store
	// Scratch holds each run's temporary files, DATA/tmp/<projectId>.
	Scratch             scratch.Dirs
	PublicURL           string // base of media addresses, e.g. "http://127.0.0.1:8787"
	AllowPrivateImports bool
	MonthlyCredits      int64 // cap used when charging the remaining credits after probe; <= 0: none
	Workers             int   // parallel projects processed; default 4
	Logger              *slog.Logger
	HTTPClient          *http.Client // for imports; nil = default with sane timeouts
	// Transcriber recognises the speech of each project at CURATE; nil
	// makes no transcripts.
	Transcriber transcribe.Transcriber

	// MediaLinks signs the clip addresses of conclusion emails; nil hands
	// them out as stored.
	MediaLinks *medialink.Signer

	// Deliveries gives each conclusion action its job, in the transaction
	// that stores it (server wires the outbound Dispatcher); nil stores the
	// deliveries without jobs, which suits tests without sending.
	Deliveries DeliveryEnqueuer
	// OnStageLeft is called when a run moves a project out of a stage, to
	// the next one or to STALLED, with the time it spent there (QUEUED: since
	// it was queued); nil = nothing. A project an interruption (a stop, a
	// crash, the watchdog) takes out of its stage is not reported: its time
	// there is not known.
	OnStageLeft func(stage apitypes.Stage, took time.Duration)
	// MaxRetries is how many stalls of one project are retried automatically
	// (transient failures and restarts); default 3.
	MaxRetries int
	// RetryBase is the wait before retrying a project after its first
	// transient stall, doubled per further stall; default 30 s.
	RetryBase time.Duration
	// PollInterval is how often stalled projects due for a retry and queued
	// projects nobody submitted are looked for, and the watchdog looks for
	// projects that stopped making progress; default 2 s.
	PollInterval time.Duration
	// WriteAttempts bounds the attempts at writing a project's stage, stall
	// or completion when the store fails (a full disk); default 5.
	WriteAttempts int
	// WriteRetryBase is the wait after the first failed write, doubled per
	// further failure; default 500 ms.
	WriteRetryBase time.Duration
}

// Runner processes projects. Create with New, then Start.
type Runner struct {
	cfg    Config
	log    *slog.Logger
	client *http.Client

	queue chan string // project ids to claim; Submit never blocks on it
	mu    sync.Mutex
	known map[string]bool // ids queued or being processed, so none runs twice

	cancel context.CancelFunc
	wg     sync.WaitGroup
	closed bool
	quit   chan struct{} // closed by Stop: idle workers and the scan loop leave

	// maxDownload caps http(s) imports; a field so tests can lower it.
	maxDownload int64
	// hook, when set by a test, is called at named points of a run.
	hook func(ctx context.Context, point string)
	// sleep waits between write attempts; a test replaces it to free the
	// disk instead of waiting.
	sleep func(ctx context.Context, d time.Duration) error
}

// New checks cfg and fills its defaults.
func New(cfg Config) (*Runner, error) {
	if cfg.Store == nil {
		return nil, errors.New("pipeline: Store is required")
	}
	if cfg.Media == nil || cfg.Scratch.Root() == "" {
		return nil, errors.New("pipeline: Media and Scratch are required")
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 4
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Transcriber == nil {
		cfg.Transcriber = transcribe.None{}
	}
	if cfg.MaxRetries <= 0 {
		cfg.MaxRetries = 3
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = 30 * time.Second
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 2 * time.Second
	}
	if cfg.WriteAttempts <= 0 {
		cfg.WriteAttempts = defaultWriteAttempts
	}
	if cfg.WriteRetryBase <= 0 {
		cfg.WriteRetryBase = defaultWriteRetryBase
	}
	if cfg.OnStageLeft == nil {
		cfg.OnStageLeft = func(apitypes.Stage, time.Duration) {}
	}
	return &Runner{
		cfg:         cfg,
		log:         cfg.Logger,
		client:      importClient(cfg.HTTPClient, cfg.AllowPrivateImports),
		queue:       make(chan string, 1024),
		known:       map[string]bool{},
		quit:        make(chan struct{}),
		maxDownload: quota.MaxLinkBytes,
		sleep:       sleepCtx,
	}, nil
}

// Start recovers projects left in flight by an earlier process (they are
// marked STALLED as interrupted and retried), then starts the workers and the
// loop that retries stalled projects and picks up queued ones. ctx bounds the
// recovery only; the workers run until Stop.
func (r *Runner) Start(ctx context.Context) error {
	r.mu.Lock()
	if r.cancel != nil || r.closed {
		r.mu.Unlock()
		return errors.New("pipeline: Start called twice or after Stop; make a new Runner")
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.cancel = cancel
	r.mu.Unlock()

	if err := r.recoverInterrupted(ctx); err != nil {
		cancel()
		return fmt.Errorf("pipeline: recover projects in flight: %w", err)
	}
	for range r.cfg.Workers {
		r.wg.Add(1)
		go r.worker(runCtx)
	}
	r.wg.Add(1)
	go r.scanLoop(runCtx)
	return nil
}

// Submit enqueues a QUEUED project without blocking. A project that does not
// fit the in-memory queue is found by the next scan instead.
func (r *Runner) Submit(projectID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.known[projectID] {
		return
	}
	select {
	case r.queue <- projectID:
		r.known[projectID] = true
	default:
	}
}

// Stop stops taking work and waits for the projects in progress. When ctx
// ends first, in-flight work (ffmpeg included) is cancelled; those projects
// stay in their stage and the next Start resumes them.
func (r *Runner) Stop(ctx context.Context) error {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.quit)
	}
	cancel := r.cancel
	// Queued projects stay QUEUED in the store; the next Start picks them up.
	r.drainQueue()
	r.mu.Unlock()
	if cancel == nil {
		return nil
	}
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
		cancel()
		return nil
	case <-ctx.Done():
		cancel()
		<-done // cancelled ffmpeg processes are killed, so this is short
		return fmt.Errorf("pipeline: stop: in-flight projects interrupted: %w", ctx.Err())
	}
}

// drainQueue empties the queue so idle workers see no more work. r.mu held.
func (r *Runner) drainQueue() {
	for {
		select {
		case id := <-r.queue:
			delete(r.known, id)
		default:
			return
		}
	}
}

func (r *Runner) isClosed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

func (r *Runner) worker(ctx context.Context) {
	defer r.wg.Done()
	for {
		select {
		case <-r.quit:
			return
		case <-ctx.Done():
			return
		case id := <-r.queue:
			if r.isClosed() {
				return // Stop won the race; the project is still QUEUED in the store
			}
			r.process(ctx, id)
			r.mu.Lock()
			delete(r.known, id)
			r.mu.Unlock()
		}
	}
}

// scanLoop retries stalled projects whose time has come, enqueues queued
// projects that were never submitted (created while the runner was down),
// and runs the watchdog (watchdog.go).
func (r *Runner) scanLoop(ctx context.Context) {
	defer r.wg.Done()
	t := time.NewTicker(r.cfg.PollInterval)
	defer t.Stop()
	for {
		if err := r.scan(ctx); err != nil && ctx.Err() == nil {
			r.log.Error("pipeline scan", "err", err)
		}
		select {
		case <-r.quit:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (r *Runner) scan(ctx context.Context) error {
	due, err := r.cfg.Store.DueRetries(ctx)
	if err != nil {
		return err
	}
	for _, id := range due {
		if err := r.requeue(ctx, id); err != nil {
			r.log.Error("requeue stalled project", "project", id, "err", err)
		}
	}
	queued, err := r.cfg.Store.ProjectsInStages(ctx, apitypes.StagesWhere(apitypes.Stage.Waiting)...)
	if err != nil {
		return err
	}
	for _, p := range queued {
		r.Submit(p.ID)
	}
	return r.watch(ctx)
}
