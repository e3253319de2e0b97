// Package server wires clipperd together: the store, the pipeline runner
// (with its watchdog), the outbound dispatcher, the copy and censor workers,
// the publish worker and scheduler, the janitor, and the HTTP API, behind
// one Start and one Close.
// The clipperd command and in-process tests both start it this way.
package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/quietlog"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/api"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/connlimit"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/datalock"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/gallery"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/install"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/janitor"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/medialink"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/metrics"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/publish"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/reqlog"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/scratch"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

// The development organization and user that Config.APIKey acts for.
const (
	DevOrgID  = "org-dev"
	DevUserID = "user-dev"
)

// DefaultListen is the address served when Config.Listen is empty.
const DefaultListen = "127.0.0.1:8787"

// Defaults of the limits on slow and idle clients (Config).
const (
	DefaultReadTimeout  = 30 * time.Second
	DefaultWriteTimeout = 60 * time.Second
	DefaultIdleTimeout  = 60 * time.Second

	DefaultUploadProgressTimeout = api.DefaultUploadProgressTimeout
	DefaultMaxConnsPerIP         = connlimit.DefaultMaxPerAddr
	// readHeaderTimeout bounds reading a request's headers, which a client
	// sends at once, within ReadTimeout.
	readHeaderTimeout = 15 * time.Second
)

// DefaultShutdownGrace bounds a graceful Close: open requests and in-flight
// pipeline work get this long before they are cut (the pipeline hands cut
// work back, for another process or the next start). Close then takes a
// little longer: the cut runs' tools are killed and their projects handed
// back before it returns.
const DefaultShutdownGrace = 10 * time.Second

// Config configures a server. Zero limits take the spec's defaults.
type Config struct {
	Listen  string // "127.0.0.1:8787" default; "127.0.0.1:0" picks a free port
	DataDir string // required
	// Database is where the state lives: a postgres:// URL or a SQLite
	// file; "" is DataDir/clipperd.db (store.Location).
	Database string
	// Media is where the media are kept: a directory (default DataDir, the
	// layout of a data directory) or a bucket, s3://BUCKET/PREFIX?endpoint=...
	// (package s3blob; credentials from the AWS environment variables).
	Media     string
	PublicURL string // default "http://<actual listen addr>" (127.0.0.1 when listening on all interfaces)
	APIKey    string // if set: ensure a dev org "org-dev" / user "user-dev" with this key
	// MasterKey (the text of CLIPPERD_MASTER_KEY) or else the key file
	// MasterKeyFile (default: an older installation's DataDir/master.key,
	// else masterkey.DefaultPath, made at first start) seals the secrets
	// kept in the database (package masterkey).
	MasterKey, MasterKeyFile string
	// Limits of every organization; zero fields take the spec's defaults.
	quota.Limits
	SMTP string // "host:port"; empty = write .eml files under DataDir/outbox
	// ASR is the speech recogniser of transcripts: transcribe.KindPocketsphinx,
	// KindCommand (with ASRCommand, a template with {input} and {output}),
	// KindOpenAI (with ASRURL, the server; ASRModel; ASRAPIKey, from
	// transcribe.ASRKeyEnv) or KindNone; "" is none (clipperd serve picks
	// pocketsphinx when installed).
	ASR, ASRCommand             string
	ASRURL, ASRModel, ASRAPIKey string
	AllowPrivateImports         bool
	Logger                      *slog.Logger // nil = discard
	// AllowPrivateWebhooks lets webhooks (conclusion actions, the webhook
	// publish destination) reach loopback and private addresses.
	AllowPrivateWebhooks bool
	// MediaURLTTL and PublicMediaURLTTL are how long the signed media
	// addresses handed out work, for projects of DEFAULT and of PUBLIC or
	// PUBLIC_VIEW visibility; zero takes medialink's defaults (7 and 30 days).
	MediaURLTTL, PublicMediaURLTTL time.Duration
	// GallerySessionTTL is how long a login to the gallery (/ui/) lasts;
	// zero takes gallery's default (12 hours).
	GallerySessionTTL time.Duration
	// TrustedProxies are reverse proxies in front of clipperd: for a
	// request from one of them, the gallery and the API count failed logins
	// and failed API keys by the right-most X-Forwarded-For address that is
	// not one of them. None: by the peer's address.
	TrustedProxies []netip.Prefix
	// ShutdownGrace bounds Close; default 10 s. When it runs out, open
	// connections are closed and in-flight ffmpeg work is cancelled.
	ShutdownGrace time.Duration
	// Now is the clock of the store and so of timestamps, credit months,
	// publish schedules and expiry; nil = time.Now. Tests move it to make
	// schedules due without waiting.
	Now func() time.Time
	// UploadExpiry is the age after which an upload never completed, or
	// never used by a project, is deleted; default a week.
	UploadExpiry time.Duration
	// JanitorPeriod is the time between the janitor's passes, which delete
	// expired uploads and project media; default 10 minutes.
	JanitorPeriod time.Duration
	// Slow and idle clients; zero takes the default. ReadTimeout bounds
	// reading a request with its body, WriteTimeout writing its answer
	// (a media download gets it per write instead, as it may take longer),
	// IdleTimeout a keep-alive connection without a request. An upload
	// PUT's body has no total deadline: it ends when no byte arrives for
	// UploadProgressTimeout. MaxConnsPerIP caps the open connections of one
	// client address (connlimit); below 0, no cap.
	ReadTimeout, WriteTimeout, IdleTimeout, UploadProgressTimeout time.Duration
	MaxConnsPerIP                                                 int
	// MetricsListen is where GET /metrics is served, on a listener of its
	// own ("127.0.0.1:0" picks a free port); "" serves no metrics.
	MetricsListen string
	// Workers is how many projects this process runs at once (the job
	// system's pipeline queue); 0 takes DefaultWorkers.
	Workers int
	// APIOnly makes an API-only node (clipperd serve --workers 0): it
	// serves the API and inserts jobs but works none (no queue, no
	// pipeline loop, no scheduler, no janitor); worker processes do.
	APIOnly bool
	// Lease is how long a project run holds its project without renewing
	// (pipeline.Config.Lease): a process killed mid-run has its projects
	// taken up by another within about this long; 0 takes the default.
	Lease time.Duration
	// ImportWorkers is how many imports of sources from the network this
	// process runs at once (the job system's import queue), beside its
	// Workers; 0 takes DefaultImportWorkers.
	ImportWorkers int
	// OrgWorkers is how many of this process's pipeline workers one
	// organization may hold (pipeline.Config.OrgShare); 0 takes Workers-1,
	// at least 1.
	OrgWorkers int
	// ImportTimeout and ImportMinRate bound an import from the network
	// (pipeline.Config); 0 takes their defaults, an ImportMinRate below 0
	// sets no floor.
	ImportTimeout time.Duration
	ImportMinRate int64
	// EncodePreset is x264's preset for this process's renders
	// (pipeline.Config.EncodePreset); "" takes media.DefaultEncodePreset.
	EncodePreset string
	// DependencyRetry is how long a call to the database or the bucket
	// that fails for want of an answer is retried before its operation
	// fails; 0 takes dependency.DefaultWindow (60 s), below 0 none.
	DependencyRetry time.Duration
}

// DefaultWorkers is Config.Workers' default: projects run at once.
const DefaultWorkers = 4

// DefaultImportWorkers is Config.ImportWorkers' default: network-bound, so
// twice the runs.
const DefaultImportWorkers = 8

// Server is a running clipperd.
type Server struct {
	url       string
	dir       string // absolute data directory
	grace     time.Duration
	log       *slog.Logger
	http      *http.Server
	served    chan error
	jobs      *jobs.Jobs
	jobKinds  // the kinds of job, each with rows of its own
	janitor   *janitor.Janitor
	scheduler *publish.Scheduler
	store     *store.Store
	links     *medialink.Signer
	media     blob.Store     // the media: a directory (DATA by default) or a bucket
	uploads   *blob.Dir      // the data directory, where resumable uploads are written
	scratch   scratch.Dirs   // the jobs' temporary directories, DATA/tmp/<owner>
	owned     *scratch.Owned // this process's DATA/tmp/<owner>; nil on an API-only node
	metrics   *metrics.Metrics
	metricsAt *metrics.Endpoint  // nil: metrics not served
	health    *dependency.Health // whether the database and the bucket answer
	cancel    context.CancelFunc
	lock      *datalock.Lock // the data directory's, shared with other servers
	workers   []worker       // those started, in order

	closeOnce sync.Once
	closeErr  error
}

// Start opens the data directory, starts the job system (project runs,
// conclusion deliveries, posts, copy and censor jobs) with the pipeline's
// loop and the publish scheduler, unless cfg.APIOnly, and serves the API;
// it is listening when it returns. ctx bounds the start only: the server
// runs until Close.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	return start(ctx, cfg, true)
}

// StartWorker starts a worker node (clipperd worker): what Start starts
// but the API, so cfg.Listen is not used and cfg.PublicURL, the base of
// the media addresses its conclusion emails carry, is required. Metrics
// are served on cfg.MetricsListen as by Start.
func StartWorker(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.PublicURL == "" {
		return nil, errors.New("server: a worker needs PublicURL, the API's address its media addresses are made under")
	}
	if cfg.APIOnly {
		return nil, errors.New("server: a worker that works nothing (APIOnly) does nothing")
	}
	return start(ctx, cfg, false)
}

// start opens what the server stands on (open), its metrics, its listener
// and its media, makes the kinds of job, starts the workers in order and,
// when serveAPI, serves the API; on an error it stops what it started.
func start(ctx context.Context, cfg Config, serveAPI bool) (*Server, error) {
	cfg, err := cfg.filled()
	if err != nil {
		return nil, err
	}
	logger := quietLogger(cfg.Logger)
	asr, err := newTranscriber(cfg, logger)
	if err != nil {
		return nil, err
	}
	s, err := open(ctx, cfg, logger)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			_ = s.stopAll()
		}
	}()
	if err := s.startMetrics(cfg, logger); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	ln, err := s.listen(cfg, serveAPI)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	defer func() {
		if !ok && ln != nil {
			_ = ln.Close()
		}
	}()
	if err := s.openMediaStore(ctx, cfg); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if err := s.claimScratch(cfg.APIOnly); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if err := s.newWorkers(cfg, asr); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if err := s.startWorkers(ctx, cfg.APIOnly); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if !serveAPI {
		ok = true
		logger.Info("clipperd worker started", "public_url", s.url, "data", s.dir, "media", DescribeMedia(s.media),
			"workers", cmp.Or(cfg.Workers, DefaultWorkers))
		return s, nil
	}
	if err := s.serveHTTP(cfg, ln, asr); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	ok = true
	logger.Info("clipperd listening", "addr", ln.Addr().String(), "public_url", s.url, "data", s.dir, "media", DescribeMedia(s.media))
	return s, nil
}

// filled is cfg with its defaults, and its DataDir made absolute.
func (cfg Config) filled() (Config, error) {
	if cfg.DataDir == "" {
		return cfg, errors.New("server: DataDir is required")
	}
	dataDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return cfg, fmt.Errorf("server: data dir %q: %w", cfg.DataDir, err)
	}
	cfg.DataDir = dataDir
	cfg.Listen = cmp.Or(cfg.Listen, DefaultListen)
	cfg.Limits = cfg.WithDefaults()
	if cfg.ShutdownGrace <= 0 {
		cfg.ShutdownGrace = DefaultShutdownGrace
	}
	cfg.fillClientLimits()
	return cfg, nil
}

// quietLogger is logger (nil: discard) with a failure that repeats (a full
// disk fails every loop, project and River's elector alike) logged on the
// failure curve, not per retry.
func quietLogger(logger *slog.Logger) *slog.Logger {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return slog.New(quietlog.New(logger.Handler(), nil))
}

// open opens what the rest stands on: the data directory, its master key
// and lock, the store (with the development key) and the job system.
func open(ctx context.Context, cfg Config, logger *slog.Logger) (*Server, error) {
	s := &Server{dir: cfg.DataDir, grace: cfg.ShutdownGrace, log: logger}
	if err := s.openStore(ctx, cfg); err != nil {
		return nil, err
	}
	if err := s.openJobs(ctx, cfg); err != nil {
		_ = s.stopAll()
		return nil, fmt.Errorf("server: %w", err)
	}
	return s, nil
}

// openStore opens the store with the master key, holding the data
// directory's lock; on an error it leaves nothing open.
func (s *Server) openStore(ctx context.Context, cfg Config) error {
	dataDir, logger := cfg.DataDir, s.log
	if err := tightenModes(dataDir); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	master, masterFrom, err := masterkey.ResolveFor(store.Locate(cfg.Database).Shared(), cfg.MasterKey, cfg.MasterKeyFile, dataDir)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	logger.Debug("master key", "from", masterFrom)
	if masterFrom == filepath.Join(dataDir, masterkey.DefaultFile) {
		logger.Warn("the master key file is inside the data directory, so a copy of the directory (cp, tar, a disk backup) opens its secrets: "+
			"move it out", "file", masterFrom, "how", masterkey.MoveHint(dataDir))
	}
	// Held while the server runs, so `clipperd migrate` can tell it runs.
	lock, err := datalock.Shared(dataDir)
	if err != nil {
		return fmt.Errorf("server: %w: `clipperd migrate` is copying it", err)
	}
	health := dependency.NewHealth(logger.With("component", "dependency"))
	st, err := store.Open(ctx, store.Location(cfg.Database, dataDir), store.WithMasterKey(master),
		store.WithRetry(dependencyRetry(cfg, dependency.Database, health)))
	if errors.Is(err, masterkey.ErrWrongKey) {
		_ = lock.Release()
		return fmt.Errorf("server: master key from %s: %w", masterFrom, err)
	}
	if err != nil {
		_ = lock.Release()
		return fmt.Errorf("server: %w", err)
	}
	// Sealed now, not at the first signed link: a second process started on
	// the same new database with another key is refused at its start.
	if _, err := st.MediaKey(ctx); err != nil {
		_ = st.Close()
		_ = lock.Release()
		return fmt.Errorf("server: the master key from %s does not open this database's secrets (%w): every process sharing a database needs the same key", masterFrom, err)
	}
	if cfg.Now != nil {
		st.SetClock(cfg.Now)
	}
	s.store, s.lock, s.health = st, lock, health
	return nil
}

// openJobs ensures the development key and opens the job system, whose
// schema follows the store's in the same database.
func (s *Server) openJobs(ctx context.Context, cfg Config) error {
	if cfg.APIKey != "" {
		if err := s.store.EnsureKey(ctx, cfg.APIKey, DevOrgID, DevUserID); err != nil {
			return fmt.Errorf("development key: %w", err)
		}
	}
	var err error
	s.jobs, err = jobs.Open(ctx, jobs.Config{Store: s.store, Logger: s.log.With("component", "jobs"),
		Workers:    map[string]int{jobs.QueuePipeline: cmp.Or(cfg.Workers, DefaultWorkers), jobs.QueueImport: cmp.Or(cfg.ImportWorkers, DefaultImportWorkers)},
		InsertOnly: cfg.APIOnly})
	return err
}

// listen opens the API's listener when serveAPI, and sets the public URL:
// cfg.PublicURL, else the listener's address.
func (s *Server) listen(cfg Config, serveAPI bool) (net.Listener, error) {
	if !serveAPI {
		s.url = cfg.PublicURL
		return nil, nil
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	s.url = cmp.Or(cfg.PublicURL, "http://"+reachableAddr(ln.Addr()))
	return ln, nil
}

// openMediaStore opens the media, a directory or a bucket, with the data
// directory where uploads are written, and the signer of their addresses.
func (s *Server) openMediaStore(ctx context.Context, cfg Config) error {
	// Media addresses are made at every read under the current public URL;
	// the store keeps them relative to it.
	s.links = medialink.New(s.store, s.url, cfg.MediaURLTTL, cfg.PublicMediaURLTTL, cfg.Now)
	var err error
	if s.uploads, err = blob.NewDir(cfg.DataDir, s.links); err != nil {
		return err
	}
	if s.media, err = openMedia(ctx, cfg.Media, s.uploads, s.links); err != nil {
		return err
	}
	// Before any job is claimed: the media's credentials must write, and
	// the media must be this database's installation's (a mistyped prefix
	// would otherwise take work and put it where no one finds it).
	at := install.Locations{Database: store.DescribeLocation(store.Location(cfg.Database, cfg.DataDir)), Media: DescribeMedia(s.media)}
	if err := install.Probe(ctx, s.media, at.Media); err != nil {
		return err
	}
	if _, err := install.Ensure(ctx, s.store, s.media, at, s.log); err != nil {
		return err
	}
	lostRows(ctx, s.store, s.media, s.log)
	s.watchDependencies(ctx, cfg)
	return nil
}

// claimScratch sets the jobs' temporary directories. A process that works
// keeps its jobs' temporary files in a directory of its own,
// DATA/tmp/<owner>, and sweeps only what processes that are gone left
// (before any job runs): several may share one data directory. An API-only
// node makes none.
func (s *Server) claimScratch(apiOnly bool) error {
	s.scratch = scratch.New(filepath.Join(s.dir, "tmp"))
	if apiOnly {
		return nil
	}
	var err error
	if s.owned, err = scratch.Claim(s.scratch.Root()); err != nil {
		return fmt.Errorf("temporary files: %w", err)
	}
	s.scratch = s.owned.Dirs
	return nil
}

// serveHTTP serves the API and the gallery on ln.
func (s *Server) serveHTTP(cfg Config, ln net.Listener, asr transcribe.Transcriber) error {
	logger := s.log
	ui, err := gallery.New(gallery.Config{Store: s.store, MediaLinks: s.links, PublicURL: s.url,
		Logger: logger.With("component", "gallery"), SessionTTL: cfg.GallerySessionTTL, Now: cfg.Now,
		TrustedProxies: cfg.TrustedProxies, OnThrottled: s.metrics.Throttled})
	if err != nil {
		return err
	}
	s.http = &http.Server{
		Handler: progressWrites(withGallery(ui, api.New(api.Config{
			Store:               s.store,
			TrustedProxies:      cfg.TrustedProxies,
			Runner:              s.runner,
			CopyJobs:            s.copies,
			CensorJobs:          s.censors,
			Media:               s.media,
			Uploads:             s.uploads,
			PublicURL:           s.url,
			Limits:              cfg.Limits,
			AllowPrivateImports: cfg.AllowPrivateImports,
			Logger:              logger.With("component", "api"),
			Posts:               s.posts,
			OnScheduleCreated:   s.scheduler.Wake,
			OnThrottled:         s.metrics.Throttled,
			ASR:                 asr.Describe(),

			AllowPrivateWebhooks:  cfg.AllowPrivateWebhooks,
			MediaLinks:            s.links,
			UploadProgressTimeout: cfg.UploadProgressTimeout,
			Ready:                 s.health.Ready,
		})), cfg.WriteTimeout),
		ReadHeaderTimeout: min(readHeaderTimeout, cfg.ReadTimeout),
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	// Every request of the public listener is logged and counted, whichever
	// handler takes it.
	s.http.Handler = reqlog.Handler(logger.With("component", "http"), s.metrics.ObserveRequest, s.http.Handler)
	served := limitConns(ln, cfg.MaxConnsPerIP, logger)
	s.served = make(chan error, 1)
	go func() { s.served <- s.http.Serve(served) }()
	return nil
}

// withGallery serves the gallery at /ui/ and GET /, the API everywhere else.
func withGallery(ui, apiHandler http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", apiHandler)
	mux.Handle("/ui/", ui)
	mux.Handle("GET /{$}", ui)
	return mux
}

// fillClientLimits gives the zero limits on slow and idle clients their defaults.
func (cfg *Config) fillClientLimits() {
	cfg.ReadTimeout = cmp.Or(cfg.ReadTimeout, DefaultReadTimeout)
	cfg.WriteTimeout = cmp.Or(cfg.WriteTimeout, DefaultWriteTimeout)
	cfg.IdleTimeout = cmp.Or(cfg.IdleTimeout, DefaultIdleTimeout)
	cfg.UploadProgressTimeout = cmp.Or(cfg.UploadProgressTimeout, DefaultUploadProgressTimeout)
}

// limitConns caps ln's open connections per client address at max (0 takes
// the default, below 0 is no cap).
func limitConns(ln net.Listener, max int, logger *slog.Logger) net.Listener {
	if max < 0 {
		return ln
	}
	return connlimit.New(ln, max, logger.With("component", "connlimit"))
}

// progressWrites gives the media downloads, which may outlast any fixed
// bound on a slow link, a deadline per write instead of the server's
// whole-answer WriteTimeout: each write must go out within every.
func progressWrites(h http.Handler, every time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/media/") {
			w = &progressWriter{ResponseWriter: w, rc: http.NewResponseController(w), every: every}
		}
		h.ServeHTTP(w, r)
	})
}

type progressWriter struct {
	http.ResponseWriter
	rc    *http.ResponseController
	every time.Duration
}

func (p *progressWriter) Write(b []byte) (int, error) {
	_ = p.rc.SetWriteDeadline(time.Now().Add(p.every))
	return p.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the real writer.
func (p *progressWriter) Unwrap() http.ResponseWriter { return p.ResponseWriter }

// reachableAddr is addr with an unspecified host (listening on all
// interfaces) replaced by the loopback address, so the default public URL
// is one a local client can use.
func reachableAddr(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// URL is the server's public base URL, e.g. "http://127.0.0.1:41234".
func (s *Server) URL() string { return s.url }

// Close stops the server gracefully: it stops accepting requests and waits
// for open ones, stops the pipeline (work cut short resumes on the next
// start), the scheduler, the job system
// (a job cut short is handed back and runs again) and the janitor,
// then closes the store. Calling it again returns
// the first result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.stopAll() })
	return s.closeErr
}

func (s *Server) stopAll() error {
	ctx, cancel := context.WithTimeout(context.Background(), s.grace)
	defer cancel()
	// The pipeline first: from now on a stage that fails, perhaps of the
	// stop (its tool signalled with the whole service), hands its run back.
	errs := s.stopWorkers(ctx, true)
	errs = append(errs, s.stopHTTP(ctx)...)
	if s.metricsAt != nil {
		errs = append(errs, s.metricsAt.Close(ctx))
	}
	errs = append(errs, s.stopWorkers(ctx, false)...)
	if s.owned != nil {
		// No job runs any more: what they left goes with the directory.
		if err := s.owned.Release(); err != nil {
			errs = append(errs, fmt.Errorf("temporary files: %w", err))
		}
	}
	if s.cancel != nil {
		s.cancel()
	}
	s.health.Stop()
	if err := s.store.Close(); err != nil {
		errs = append(errs, fmt.Errorf("store close: %w", err))
	}
	_ = s.lock.Release()
	s.log.Info("clipperd stopped")
	return errors.Join(errs...)
}

// stopHTTP stops accepting requests and waits for the open ones until ctx
// ends, then cuts those still open (a slow upload).
func (s *Server) stopHTTP(ctx context.Context) []error {
	if s.http == nil {
		return nil
	}
	var errs []error
	if err := s.http.Shutdown(ctx); err != nil {
		_ = s.http.Close()
		if !errors.Is(err, context.DeadlineExceeded) {
			errs = append(errs, fmt.Errorf("http shutdown: %w", err))
		}
	}
	if err := <-s.served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		errs = append(errs, fmt.Errorf("http serve: %w", err))
	}
	return errs
}

// newTranscriber makes the recogniser cfg.ASR names. A missing
// pocketsphinx is a warning: projects then stall at CURATE until it is
// installed, as after any recogniser crash.
func newTranscriber(cfg Config, logger *slog.Logger) (transcribe.Transcriber, error) {
	asr, err := transcribe.New(transcribe.Options{Kind: cfg.ASR, Command: cfg.ASRCommand, URL: cfg.ASRURL, Model: cfg.ASRModel, APIKey: cfg.ASRAPIKey})
	if err != nil {
		return nil, fmt.Errorf("server: --asr: %w", err)
	}
	if cfg.ASR == transcribe.KindPocketsphinx && transcribe.DefaultKind() != transcribe.KindPocketsphinx {
		// A missing recogniser is the server's problem, not the projects':
		// they complete without transcripts, and /healthz says why.
		logger.Warn("no speech recognition: " + transcribe.PocketsphinxTool + " is not on PATH; projects complete without transcripts. Install pocketsphinx and pocketsphinx-en-us")
		return transcribe.None{}, nil
	}
	return asr, nil
}
