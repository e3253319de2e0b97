// Package jobs is clipperd's one job system: background work is a River job
// (github.com/riverqueue/river) inserted in the same transaction as the row
// it belongs to (InsertTx), claimed by exactly one worker (River's claim is
// one UPDATE ... RETURNING), retried on the one backoff curve (package
// backoff), leased (a job whose process died comes back after its kind's
// Timeout, see RescueAfter) and visible (Counts, Recent).
//
// The driver is the one the store names (Database.JobDriver), through one
// code path: River's clients are all river.Client[*sql.Tx] over the store's
// *sql.DB; what else differs between databases is asked of the store as
// what it can do, never by its engine's name.
//
// River's schema is versioned by River itself (its river_migration table,
// rivermigrate), beside the store's schema_migrations in the same database:
// Open applies it after the store has applied its own.
package jobs

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/clipperhq/terraform-provider-clipper/internal/backoff"
	"github.com/clipperhq/terraform-provider-clipper/internal/quietlog"
)

// Database is the store as the job system uses it: its database, which the
// jobs share (connections, transactions), and what its engine can do.
// *store.Store is one.
type Database interface {
	DB() *sql.DB
	// JobDriver names the package of River's driver for the database:
	// "riversqlite" or "riverdatabasesql" (see drivers).
	JobDriver() string
	// SingleConnection: every statement waits for one connection, so
	// polls are made rarely (sqlitePoll).
	SingleConnection() bool
	// Exclusively runs fn holding the lock name across every process that
	// shares the database (River's migrations take none of their own).
	Exclusively(ctx context.Context, name string, fn func(context.Context) error) error
	// DatabaseTime reads the database's clock where it is not this
	// machine's (ok false: it is).
	DatabaseTime(ctx context.Context) (t time.Time, ok bool, err error)
}

// Queues and how many jobs of each one process works at once. A new kind of
// job gets its queue here, so every process agrees on the names.
const (
	// QueueCopy holds social copy jobs (package copyjobs): milliseconds
	// each, so one at a time keeps up.
	QueueCopy = "copy"
	// QueueCensor holds censor jobs (package censorjobs): an ffmpeg run
	// over two short files each, one at a time as before.
	QueueCensor = "censor"
	// QueueDelivery holds conclusion deliveries (package outbound): a few
	// at a time, so one slow receiver does not hold up the others.
	QueueDelivery = "delivery"
	// QueuePublish holds posts to publish (package publish): one at a
	// time, oldest first, as before the job system.
	QueuePublish = "publish"
	// QueuePipeline holds project runs (package pipeline): each runs a
	// project's whole pipeline, ffmpeg included, so a process runs as many
	// at once as it has cores to give (clipperd's --workers).
	QueuePipeline = "pipeline"
	// QueueImport holds the imports of projects' sources from the network
	// (package pipeline): network-bound, so more at once than the pipeline
	// queue's CPU-bound runs, which a slow source then does not hold
	// (clipperd's --import-workers).
	QueueImport = "import"
)

// queueWorkers are the queues and how many jobs of each a process works at
// once unless Config.Workers says otherwise.
var queueWorkers = map[string]int{
	QueueCopy:     1,
	QueueCensor:   1,
	QueueDelivery: 4,
	QueuePublish:  1,
	QueuePipeline: 4,
	QueueImport:   8,
}

// Defaults of Config.
const (
	// DefaultRescueAfter is River's RescueStuckJobsAfter, the floor of
	// every kind's lease: a running job whose process died is retried once
	// it has run max(RescueAfter, its kind's Timeout), when River's rescuer
	// (every 30s, on the leader) next looks.
	DefaultRescueAfter = 10 * time.Second
	// DefaultTimeout is a kind's Timeout when it names none.
	DefaultTimeout = time.Minute
)

// DefaultRetry is the retry curve of a job that fails: the backoff curve
// from 1s doubling to 10 minutes, 10 attempts in all (the nine waits,
// jittered, add up to 4 to 9 minutes).
var DefaultRetry = backoff.Retry{Base: time.Second, Max: 10 * time.Minute, Attempts: 10}

// Config configures Jobs.
type Config struct {
	// Store is the store whose database the jobs share.
	Store Database
	// Retry is the retry budget of every kind that sets none of its own;
	// zero fields take DefaultRetry's.
	Retry backoff.Retry
	// RescueAfter: see DefaultRescueAfter; zero takes it.
	RescueAfter time.Duration
	// FetchPollInterval bounds how long a job inserted by another process
	// waits to be claimed; zero takes River's default (1s). Tests shorten it.
	FetchPollInterval time.Duration
	// Workers are this process's jobs at once per queue, by Queue
	// constant; a queue not named keeps its default, and 0 works none of
	// its jobs here.
	Workers map[string]int
	// InsertOnly works no queue at all (an API-only node): the process
	// only inserts jobs, and Start and Stop do nothing.
	InsertOnly bool
	Logger     *slog.Logger // nil = discard
}

// Jobs is the job system of one process: register every kind with Register,
// then Start; Stop before closing the store.
type Jobs struct {
	client  *river.Client[*sql.Tx]
	workers *river.Workers
	store   Database
	retry   backoff.Retry
	log     *slog.Logger

	mu    sync.Mutex
	kinds map[string]Kind // by River kind

	// stopping is set by Stop before it cancels running jobs, so a job cut
	// short is handed back (available at once, its attempt not counted)
	// rather than failed.
	stopping atomic.Bool
	// working: this process works some queue (Config.Workers).
	working bool
	// queues: this process's workers per queue it works.
	queues map[string]int
}

// Open applies River's migrations to the store's database and makes the
// client; no job runs before Start.
func Open(ctx context.Context, cfg Config) (*Jobs, error) {
	if cfg.Store == nil {
		return nil, errors.New("jobs: Store is required")
	}
	rd, err := driverFor(cfg.Store)
	if err != nil {
		return nil, err
	}
	driver := rd.new(cfg.Store.DB())
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	// River's migrator takes no lock, and processes of a scale-out
	// installation starting together on a new database (or a new release)
	// would race to apply the same step, one of them failing at start: they
	// take turns, the later ones finding nothing to apply.
	err = cfg.Store.Exclusively(ctx, "clipperd river_migration", func(ctx context.Context) error {
		return migrate(ctx, driver, logger)
	})
	if err != nil {
		return nil, err
	}
	rescueAfter := cmp.Or(cfg.RescueAfter, DefaultRescueAfter)
	j := &Jobs{workers: river.NewWorkers(), store: cfg.Store, retry: cfg.Retry.Or(DefaultRetry), log: logger, kinds: map[string]Kind{}}
	poll := cfg.FetchPollInterval
	if poll == 0 && cfg.Store.SingleConnection() {
		poll = sqlitePoll
	}
	queues, err := queuesOf(cfg.Workers, poll, rd.listens)
	if err != nil {
		return nil, err
	}
	if cfg.InsertOnly {
		queues = nil
	}
	j.working = len(queues) > 0
	j.queues = make(map[string]int, len(queues))
	for name, q := range queues {
		j.queues[name] = q.MaxWorkers
	}
	j.client, err = river.NewClient(driver, &river.Config{
		Queues:               queues,
		Workers:              j.workers,
		RetryPolicy:          curve{j.retry},
		MaxAttempts:          j.retry.Attempts,
		RescueStuckJobsAfter: rescueAfter,
		// Every kind has a Timeout of its own (Register); River requires
		// this default to be within RescueStuckJobsAfter.
		JobTimeout:        rescueAfter,
		FetchPollInterval: poll,
		// River logs each retry of its elector and completer; on a full
		// disk they repeat, some without their error: quieted (quietlog).
		Logger: slog.New(quietlog.All(logger.Handler())),
		// River's own errors are logged by River; a worker's by the
		// error handler, with the job it belongs to.
		ErrorHandler: errorLog{logger},
	})
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	return j, nil
}

// pipelinePoll is how often an idle process on PostgreSQL looks for project
// runs and imports: over database/sql River has no LISTEN, so it wakes a
// process's workers at once only for the jobs that process inserts outside a
// transaction, and a run is inserted in the project's. A quarter of a second
// is under 1% of the shortest run, for a light read.
const pipelinePoll = 250 * time.Millisecond

// sqlitePoll is how often every queue looks for jobs on a database of one
// connection (SQLite), where riversqlite's listener hears each insert (a
// notification row written in the inserting transaction, read every 50 ms)
// and wakes the queue: the poll only finds what nothing announced, such as
// a snoozed job come due. Polls there are writes on the store's one
// connection, so River's default of one a second per queue, and four a
// second for runs, cost the API measurably.
const sqlitePoll = 2 * time.Second

// queuesOf is River's queue configuration for the per-process worker
// counts: every queue's default, overridden by workers; a queue with 0
// workers is left out, so this process does not work it.
// Without a listener (listens false: River's driver has none, as over
// database/sql on PostgreSQL) the pipeline and import queues are polled
// every pipelinePoll at least; poll is the client's interval (0: River's
// default).
func queuesOf(workers map[string]int, poll time.Duration, listens bool) (map[string]river.QueueConfig, error) {
	queues := make(map[string]river.QueueConfig, len(queueWorkers))
	for name, n := range workers {
		if _, ok := queueWorkers[name]; !ok {
			return nil, fmt.Errorf("jobs: Workers: unknown queue %q", name)
		}
		if n < 0 {
			return nil, fmt.Errorf("jobs: Workers: queue %q: %d workers, must be 0 or more", name, n)
		}
	}
	for name, n := range queueWorkers {
		if w, ok := workers[name]; ok {
			n = w
		}
		if n == 0 {
			continue
		}
		q := river.QueueConfig{MaxWorkers: n}
		if !listens && (name == QueuePipeline || name == QueueImport) && (poll == 0 || poll > pipelinePoll) {
			q.FetchPollInterval = pipelinePoll
		}
		queues[name] = q
	}
	return queues, nil
}

// riverDriver is one of River's drivers: how to make it, and whether it
// hears inserts (River's listener; its SupportsListener is not for
// callers).
type riverDriver struct {
	new     func(*sql.DB) riverdriver.Driver[*sql.Tx]
	listens bool
}

// drivers are River's drivers by package name (Database.JobDriver):
// riversqlite's listener reads a notification row each insert writes;
// over database/sql River has no LISTEN.
var drivers = map[string]riverDriver{
	"riversqlite":      {func(db *sql.DB) riverdriver.Driver[*sql.Tx] { return riversqlite.New(db) }, true},
	"riverdatabasesql": {func(db *sql.DB) riverdriver.Driver[*sql.Tx] { return riverdatabasesql.New(db) }, false},
}

// driverFor is River's driver over the store's database, the one it names.
func driverFor(store Database) (riverDriver, error) {
	driver, ok := drivers[store.JobDriver()]
	if !ok {
		return riverDriver{}, fmt.Errorf("jobs: the store's database has no River driver (it names %q)", store.JobDriver())
	}
	return driver, nil
}

// migrate brings River's schema up to this River's version; each step runs
// in a transaction of its own, like the store's.
func migrate(ctx context.Context, driver riverdriver.Driver[*sql.Tx], logger *slog.Logger) error {
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: logger})
	if err != nil {
		return fmt.Errorf("jobs: migrations: %w", err)
	}
	res, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return fmt.Errorf("jobs: migrate: %w", err)
	}
	for _, v := range res.Versions {
		logger.Info("applied job system migration", "version", v.Version, "name", v.Name)
	}
	return nil
}

// Start works the registered kinds until Stop. ctx bounds the start only.
// A process that works no queue (Config.Workers) starts nothing.
func (j *Jobs) Start(ctx context.Context) error {
	if !j.working {
		return nil
	}
	j.stopping.Store(false)
	// River stops when its start context ends; Stop is what ends it here.
	if err := j.client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("jobs: start: %w", err)
	}
	return nil
}

// Stop lets running jobs finish until ctx ends, then cancels them (each is
// handed back: available again, its attempt not counted) and always waits
// for them to return, so nothing uses the database after Stop.
func (j *Jobs) Stop(ctx context.Context) {
	if !j.working {
		return
	}
	if err := j.client.Stop(ctx); err == nil {
		return
	}
	j.stopping.Store(true)
	if err := j.client.StopAndCancel(context.Background()); err != nil {
		j.log.Error("stop jobs", "err", err)
	}
}

// Workers is how many jobs of queue this process works at once; 0 when it
// works none (Config.Workers, InsertOnly).
func (j *Jobs) Workers(queue string) int { return j.queues[queue] }

// Snooze is what a work function returns to put its job back for d
// without counting the attempt: the job waits behind the jobs that were
// waiting before it, which lets another's job take the worker.
func Snooze(d time.Duration) error { return river.JobSnooze(d) }

// InsertTx adds a job of args' kind, which must be registered, in tx: it
// exists exactly when tx commits. A kind registered Unique adds nothing
// while a job with the same args is waiting, running or completed.
func (j *Jobs) InsertTx(ctx context.Context, tx *sql.Tx, args Args) error {
	k, err := j.kind(args.Kind())
	if err != nil {
		return err
	}
	if _, err := j.client.InsertTx(ctx, tx, args, k.insertOpts()); err != nil {
		return fmt.Errorf("jobs: insert %s: %w", args.Kind(), err)
	}
	return nil
}

// Insert is InsertTx in a transaction of its own.
func (j *Jobs) Insert(ctx context.Context, args Args) error {
	k, err := j.kind(args.Kind())
	if err != nil {
		return err
	}
	if _, err := j.client.Insert(ctx, args, k.insertOpts()); err != nil {
		return fmt.Errorf("jobs: insert %s: %w", args.Kind(), err)
	}
	return nil
}

func (j *Jobs) kind(name string) (Kind, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	k, ok := j.kinds[name]
	if !ok {
		return Kind{}, fmt.Errorf("jobs: kind %q is not registered", name)
	}
	return k, nil
}
