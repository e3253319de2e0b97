// Package pipeline turns a queued project into clips: IMPORT, CURATE, REFINE,
// RENDER and UPLOAD run as plain functions over a project (machine.go). Each
// run is a job of the job system (package jobs, queue pipeline), inserted in
// the transaction that makes the project QUEUED, so any process working the
// queue may take it. A run holds a lease on its project that a heartbeat
// renews and fences its writes with the project's run token (runs.go); the
// Runner's loop requeues projects whose lease ended (their process died)
// and retries transient stalls with backoff.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/backoff"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/medialink"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/repeat"
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
	Store Store // required; *store.Store is one
	// Jobs runs the project runs (queue pipeline); the Runner registers
	// its kind there, so even a process that works no queue can queue
	// projects.
	Jobs *jobs.Jobs
	// Media holds the sources, renders and captions (blob.MediaKey) and
	// the uploads the projects import.
	Media blob.Store
	// Scratch holds each run's temporary files, DATA/tmp/<owner>/<projectId>.run<token>.
	Scratch             scratch.Dirs
	PublicURL           string // base of media addresses, e.g. "http://127.0.0.1:8787"
	AllowPrivateImports bool
	MonthlyCredits      int64 // cap used when charging the remaining credits after probe; <= 0: none
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
	// OnFirstClip is called once per run, when the first of its clips is
	// rendered, with the time since the project was created; nil =
	// nothing.
	OnFirstClip func(sinceCreate time.Duration)
	// MaxRetries is how many stalls of one project are retried automatically
	// (transient failures and restarts); default 3.
	MaxRetries int
	// RetryBase is the wait before retrying a project after its first
	// transient stall, doubled per further stall; default 30 s.
	RetryBase time.Duration
	// PollInterval is how often stalled projects due for a retry, and
	// projects whose run's lease ended, are looked for; default 2 s.
	PollInterval time.Duration
	// Lease is how long a run holds its project without renewing: its
	// heartbeat renews it every Lease/3, and a project whose lease ended
	// (its process died) is queued again by any process's loop; default
	// DefaultLease. On PostgreSQL leases are taken and checked by the
	// database's clock (leaseClock), so processes on machines whose clocks
	// disagree share them safely; on SQLite by Clock.
	Lease time.Duration
	// Clock is the process's clock, which leases use on SQLite; default
	// time.Now. Tests set a skewed one.
	Clock func() time.Time
	// MaxInterruptions is how many runs in a row may end without an outcome
	// (their lease ended: the process died, or the run's writes kept
	// failing) before the project is STALLED for good; the first is queued
	// again at once, each further one after the backoff of RetryBase
	// (retryDelay); default DefaultMaxInterruptions.
	MaxInterruptions int
	// OrgShare is how many of this process's pipeline workers one
	// organization's runs may hold at once; 0 takes max(1, workers-1), so
	// with two workers or more one is always left for another
	// organization. A run of an organization at its share is put back
	// (orgSnooze, no attempt counted) behind the runs waiting before it,
	// unless it is resumed (runArgs.Resumed: handed back by a stop, or its
	// process died), which takes the worker over the share.
	OrgShare int
	// ImportTimeout bounds the import of a source from the network (a
	// link or a video page), first request to last byte; default
	// DefaultImportTimeout. A source past it fails the project (permanent).
	ImportTimeout time.Duration
	// ImportMinRate is the bytes per second a download from a link must
	// average over every ImportRateWindow, or it fails the project
	// (permanent); 0 takes DefaultImportMinRate, below 0 sets no floor.
	ImportMinRate int64
	// ImportRateWindow: see ImportMinRate; default DefaultImportRateWindow.
	ImportRateWindow time.Duration
	// WriteAttempts bounds the attempts at writing a project's stage, stall
	// or completion when the store fails (a full disk); default 5.
	WriteAttempts int
	// WriteRetryBase is the wait after the first failed write, doubled per
	// further failure; default 500 ms.
	WriteRetryBase time.Duration
	// EncodePreset is x264's preset for this process's renders (one of
	// media.EncodePresets); "" is media.DefaultEncodePreset. It is the
	// process's, like its workers: a piece is encoded with the preset of
	// the process that renders it.
	EncodePreset string
}

// DefaultLease is Config.Lease's default: a process killed mid-run has its
// projects resumed elsewhere within about this long.
const DefaultLease = 30 * time.Second

// DefaultMaxInterruptions is Config.MaxInterruptions's default: a project
// whose runs end without an outcome five times in a row (with the default
// RetryBase, about four minutes of backoff between them) is given up.
const DefaultMaxInterruptions = 5

// runTimeout bounds one run, and is the job's lease in River's terms: far
// beyond any render, so River never cuts a run short nor retries a live one;
// the project's own lease (Config.Lease) is what hands a dead process's run
// to another. A River job retried after it (its process died) finds its run
// token stale and ends at once.
const runTimeout = 24 * time.Hour

// runArgs is the job of one run: the project and the run token it was
// queued with. A run of a token the project no longer carries does nothing.
// Resumed marks the run of a project whose last run was cut short without
// an outcome (a stop's hand-back, the lease of a process that died): it
// takes any free worker, over its organization's share (takeShare), since
// it held a worker already. The job is unique by project and token alone.
type runArgs struct {
	ProjectID string `json:"project_id" river:"unique"`
	Run       int64  `json:"run" river:"unique"`
	Resumed   bool   `json:"resumed,omitempty"`
}

func (runArgs) Kind() string { return "project_run" }

// importArgs is the job of a run's import leg (queue import): the fetch of
// a source from the network, which then queues the project's run.
type importArgs runArgs

func (importArgs) Kind() string { return "project_import" }

// Runner processes projects. Create with New; Start runs its loop (in every
// process that works the pipeline queue).
type Runner struct {
	cfg    Config
	log    *slog.Logger
	client *http.Client

	loop repeat.Loop // retries due and the watchdog, every PollInterval
	// stopping is set by Stop: the process was told to stop.
	stopping atomic.Bool

	leases *leaseClock // the time of leases: the database's on PostgreSQL
	// runs inserts the projects' jobs: a run's, or its import leg's.
	runs *jobs.Rows[jobs.Args]
	// sources are the local copies of the sources this process's pieces
	// read (pieces.go).
	sources sourceCopies
	// failedRetries and failedRequeues back off the loop's writes of a
	// project that keep failing: due retries, the watchdog's requeues.
	failedRetries, failedRequeues failing

	// held counts this process's jobs per queue and organization
	// (OrgShare), by share key.
	heldMu sync.Mutex
	held   map[shareKey]int

	// maxDownload caps http(s) imports; a field so tests can lower it.
	maxDownload int64
	// hook, when set by a test, is called at named points of a run.
	hook func(ctx context.Context, point string)
	// sleep waits between write attempts; a test replaces it to free the
	// disk instead of waiting.
	sleep func(ctx context.Context, d time.Duration) error
}

// New checks cfg, fills its defaults and registers the runs' kind with
// cfg.Jobs, which works them from its Start.
func New(cfg Config) (*Runner, error) {
	if cfg.Store == nil || cfg.Jobs == nil {
		return nil, errors.New("pipeline: Store and Jobs are required")
	}
	if cfg.Media == nil || cfg.Scratch.Root() == "" {
		return nil, errors.New("pipeline: Media and Scratch are required")
	}
	if err := media.CheckEncodePreset(cfg.EncodePreset); err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	cfg = cfg.withDefaults()
	r := &Runner{
		cfg:         cfg,
		log:         cfg.Logger,
		client:      importClient(cfg.HTTPClient, cfg.AllowPrivateImports),
		maxDownload: quota.MaxLinkBytes,
		held:        map[shareKey]int{},
		sleep:       backoff.Sleep,
		leases:      &leaseClock{local: cfg.Clock, db: cfg.Store.DatabaseTime},
	}
	r.runs = jobs.NewRows(cfg.Jobs, "project", r.waiting)
	// Unique by its args (project and token): adopting a project twice
	// adds one job.
	err := jobs.Register(cfg.Jobs, jobs.Kind{Queue: jobs.QueuePipeline, Timeout: runTimeout, Unique: true}, r.work)
	if err == nil {
		err = jobs.Register(cfg.Jobs, jobs.Kind{Queue: jobs.QueueImport, Timeout: runTimeout, Unique: true}, r.workImport)
	}
	if err == nil {
		err = jobs.Register(cfg.Jobs, jobs.Kind{Queue: jobs.QueuePipeline, Timeout: pieceTimeout, Unique: true}, r.workPiece)
	}
	if err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	return r, nil
}

// withDefaults is cfg with its zero fields given their defaults.
func (cfg Config) withDefaults() Config {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Transcriber == nil {
		cfg.Transcriber = transcribe.None{}
	}
	if cfg.OnStageLeft == nil {
		cfg.OnStageLeft = func(apitypes.Stage, time.Duration) {}
	}
	if cfg.OnFirstClip == nil {
		cfg.OnFirstClip = func(time.Duration) {}
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
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.MaxInterruptions <= 0 {
		cfg.MaxInterruptions = DefaultMaxInterruptions
	}
	if cfg.OrgShare <= 0 {
		cfg.OrgShare = max(1, cfg.Jobs.Workers(jobs.QueuePipeline)-1)
	}
	return cfg.withImportAndWriteDefaults()
}

// withImportAndWriteDefaults is cfg with the zero limits of its imports and
// the bounds of its state writes given their defaults.
func (cfg Config) withImportAndWriteDefaults() Config {
	if cfg.ImportTimeout <= 0 {
		cfg.ImportTimeout = DefaultImportTimeout
	}
	if cfg.ImportMinRate == 0 {
		cfg.ImportMinRate = DefaultImportMinRate
	}
	if cfg.ImportRateWindow <= 0 {
		cfg.ImportRateWindow = DefaultImportRateWindow
	}
	if cfg.WriteAttempts <= 0 {
		cfg.WriteAttempts = defaultWriteAttempts
	}
	if cfg.WriteRetryBase <= 0 {
		cfg.WriteRetryBase = defaultWriteRetryBase
	}
	return cfg
}

// Enqueue is store.CreateProjectThen's hook for p, and the requeues': it
// adds the job of p's current run token in the transaction that makes p
// QUEUED.
func (r *Runner) Enqueue(p *store.Project) store.TxHook {
	return r.enqueue(p, false)
}

// enqueue is Enqueue, with the job marked resumed (runArgs.Resumed).
func (r *Runner) enqueue(p *store.Project, resumed bool) store.TxHook {
	return r.runs.Enqueue(func() jobs.Args { return r.next(p, resumed) })
}

// next is the job of p's current run token: its import leg while its source
// is still to be fetched from the network, else its run.
func (r *Runner) next(p *store.Project, resumed bool) jobs.Args {
	a := runArgs{ProjectID: p.ID, Run: p.RunToken, Resumed: resumed}
	if p.SourceKey == "" && r.fromNetwork(p) {
		return importArgs(a)
	}
	return a
}

// Adopt gives every QUEUED project without a job one: those a release
// before the job system left, and any whose job gave up. A project that has
// its job keeps it (the kind is unique by its args).
func (r *Runner) Adopt(ctx context.Context) error { return r.runs.Adopt(ctx) }

// waiting are the jobs of the projects waiting for a run (Adopt). Their
// work checks the row itself: a run's claim, fenced by the project's run
// token, ends the run of a project gone or moved on (process).
func (r *Runner) waiting(ctx context.Context) ([]jobs.Args, error) {
	ps, err := r.cfg.Store.ProjectsInStages(ctx, apitypes.StagesWhere(apitypes.Stage.Waiting)...)
	if err != nil {
		return nil, err
	}
	next := make([]jobs.Args, len(ps))
	for i, p := range ps {
		next[i] = r.next(p, false)
	}
	return next, nil
}

// Start requeues the projects whose run's lease ended (a dead process's,
// or one a release before leases left in flight) and those due for a
// retry, before it returns, then keeps looking every PollInterval until
// Stop (on the failure curve of package repeat while the store fails).
// ctx bounds the first look only.
func (r *Runner) Start(ctx context.Context) error {
	if err := r.scan(ctx); err != nil {
		return fmt.Errorf("pipeline: requeue projects: %w", err)
	}
	r.loop.OnFailure = func(err error, failures int, retryIn time.Duration) {
		r.log.Error("pipeline: requeue projects", "err", err, "failures", failures, "retryIn", retryIn)
	}
	r.loop.Start(context.WithoutCancel(ctx), func(ctx context.Context) (time.Duration, error) {
		return r.cfg.PollInterval, r.scan(ctx)
	})
	return nil
}

// Stop ends the loop, and from now on a run whose stage fails for a
// reason that may be the stop's hands its project back instead of stalling
// it (failed). The runs are the job system's: its Stop lets them finish
// within its grace and hands back the ones it cuts short. Call it first
// when the process is told to stop.
func (r *Runner) Stop(context.Context) error {
	r.stopping.Store(true)
	r.loop.Stop()
	return nil
}

// work runs one job: the run of its project, unless the project moved on
// from the token the job was queued with. Only a claim that could not be
// written fails the job, which River retries.
func (r *Runner) work(ctx context.Context, job *jobs.Job[runArgs]) error {
	return r.shared(ctx, jobs.QueuePipeline, job.Args, wholeRun)
}

// workImport runs one import leg, like work.
func (r *Runner) workImport(ctx context.Context, job *jobs.Job[importArgs]) error {
	return r.shared(ctx, jobs.QueueImport, runArgs(job.Args), importLeg)
}

// shared runs leg l of a's run within its organization's share of queue's
// workers, or puts the job back.
func (r *Runner) shared(ctx context.Context, queue string, a runArgs, l leg) error {
	release, ok, err := r.takeShare(ctx, queue, a)
	if err != nil {
		return err
	}
	if !ok {
		return jobs.Snooze(orgSnoozeFor())
	}
	defer release()
	return r.process(ctx, a.ProjectID, a.Run, l)
}

// handOff ends an import leg: in one transaction fenced by the run's token,
// the project is QUEUED again for its run, with its source recorded and the
// run's job; the new token ends this leg's hold on it.
func (r *Runner) handOff(ctx context.Context, j *job) (apitypes.Stage, error) {
	err := r.persist(ctx, "hand-off", j.p.ID, func() error {
		_, _, err := r.cfg.Store.MutateProjectWithEffects(ctx, j.p.ID, func(p *store.Project) (store.Effects, error) {
			if err := fence(p, j.run); err != nil {
				return store.Effects{}, err
			}
			p.SourceKey = blob.MediaKey(p.ID, sourceName)
			p.Interruptions = 0 // the leg's outcome
			return r.queueAgain(p), nil
		})
		return err
	})
	if err != nil {
		return "", fmt.Errorf("queue the imported project: %w", err)
	}
	return apitypes.StageQueued, nil
}

// shareKey counts an organization's jobs on one queue.
type shareKey struct{ queue, org string }

// share is how many of queue's workers in this process one organization
// may hold.
func (r *Runner) share(queue string) int {
	if queue == jobs.QueuePipeline {
		return r.cfg.OrgShare
	}
	return max(1, r.cfg.Jobs.Workers(queue)-1)
}

// orgSnooze is how long a run of an organization at its share waits before
// it is tried again: short, so the organization gets a worker back soon
// after one of its runs ends, yet it puts the run behind every run that
// was waiting already, another organization's among them.
const orgSnooze = time.Second

// orgSnoozeJitter spreads orgSnooze over two of the pipeline queue's polls
// (250 ms on PostgreSQL). A fixed second is four polls of the process that
// put the run back, so that process polled first when it came due, took
// it again and put it back again: measured on two workers, a run over its
// organization's share on one bounced there 5 times in 5 s while the other
// had both its workers free. Jittered, each process's poll is as likely as
// the other's to come first.
const orgSnoozeJitter = 500 * time.Millisecond

// orgSnoozeFor is one put-back's wait: orgSnooze and a random part of
// orgSnoozeJitter.
func orgSnoozeFor() time.Duration {
	return orgSnooze + rand.N(orgSnoozeJitter)
}

// takeShare counts run a against its organization's share of this
// process's workers (Config.OrgShare), and returns what gives it back; ok
// is false when the organization holds its share already and the run is
// not resumed. A resumed run (a.Resumed) takes the worker River gave it
// over the share: it held a worker on a process that stopped or died, and
// the share, counted per process, would otherwise keep it waiting while
// this process has a worker free, until one of the organization's runs
// here ends or its process comes back. A run that will not start (the
// project moved on) takes nothing.
func (r *Runner) takeShare(ctx context.Context, queue string, a runArgs) (release func(), ok bool, err error) {
	id := a.ProjectID
	p, err := r.cfg.Store.GetProject(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return func() {}, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("pipeline: look up project %s: %w", id, err)
	}
	if p.RunToken != a.Run || !p.Stage.Waiting() {
		return func() {}, true, nil
	}
	release, ok = r.holdShare(queue, p, a.Resumed)
	return release, ok, nil
}

// holdShare counts a job of p (a run, or a piece of one) against its
// organization's share of this process's workers of queue, and returns
// what gives it back; ok is false when the organization holds its share
// already, unless resumed (see takeShare).
func (r *Runner) holdShare(queue string, p *store.Project, resumed bool) (release func(), ok bool) {
	k := shareKey{queue, p.OrgID}
	r.heldMu.Lock()
	defer r.heldMu.Unlock()
	if r.held[k] >= r.share(queue) {
		if !resumed {
			r.log.Debug("project job put back: its organization holds its share of the workers", "project", p.ID, "org", p.OrgID, "queue", queue, "share", r.share(queue))
			return nil, false
		}
		r.log.Info("resumed project run takes a free worker over its organization's share", "project", p.ID, "org", p.OrgID, "queue", queue,
			"share", r.share(queue), "held", r.held[k])
	}
	r.held[k]++
	return func() {
		r.heldMu.Lock()
		defer r.heldMu.Unlock()
		if r.held[k]--; r.held[k] == 0 {
			delete(r.held, k)
		}
	}, true
}

// scan requeues stalled projects whose retry is due and projects whose
// run's lease ended.
func (r *Runner) scan(ctx context.Context) error {
	due, err := r.cfg.Store.DueRetries(ctx)
	if err != nil {
		return err
	}
	r.failedRetries.attempt(due, r.cfg.Clock(), func(id string) error { return r.requeue(ctx, id) },
		func(id string, err error, n int, wait time.Duration) {
			r.log.Error("requeue stalled project", "project", id, "err", err, "failures", n, "retryIn", wait)
		})
	r.sources.sweep(ctx, r)
	return r.watch(ctx)
}
