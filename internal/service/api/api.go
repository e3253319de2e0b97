// Package api is clipperd's HTTP surface: the /api/ endpoints of
// service-interface.md (as filled-gaps.md completes them), the object-storage
// side of the local upload flow (/storage/), rendered media (/media/) and
// /healthz. Handlers are thin: they check the caller, validate the request,
// hand the work to the store, the upload protocol (package upload) and the
// pipeline, and answer errors through fail (errors.go), the one place where
// errors become HTTP statuses.
package api

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/failbound"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/medialink"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/upload"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// healthStore is what /healthz asks of the store.
type healthStore interface {
	Ping(ctx context.Context) error
}

// ProjectEnqueuer gives a QUEUED project its job in the job system (the
// pipeline's Runner), in the transaction that stores the project.
type ProjectEnqueuer interface {
	Enqueue(p *store.Project) store.TxHook
}

// CopyEnqueuer gives a RUNNING social copy job its job in the job system
// (package copyjobs), in the transaction that stores the job.
type CopyEnqueuer interface {
	Enqueue(j *store.CopyJob) store.TxHook
}

// CensorEnqueuer gives a QUEUED censor job its job in the job system
// (package censorjobs), in the transaction that stores the job.
type CensorEnqueuer interface {
	Enqueue(j *store.CensorJob) store.TxHook
}

// PostEnqueuer gives a pending post its job in the job system (package
// publish), in the transaction that stores the post.
type PostEnqueuer interface {
	Enqueue(p *store.Post) store.TxHook
}

// Config is what the handlers need.
type Config struct {
	Store Store // *store.Store is one
	// Runner enqueues every created project. Nil enqueues nothing: projects stay
	// QUEUED, which suits tests of handlers without processing.
	Runner ProjectEnqueuer
	// CopyJobs enqueues every RUNNING social copy job. Nil enqueues
	// nothing: jobs stay RUNNING, which suits tests of handlers.
	CopyJobs CopyEnqueuer
	// CensorJobs enqueues every QUEUED censor job. Nil enqueues nothing:
	// jobs stay QUEUED.
	CensorJobs CensorEnqueuer
	// Media holds the complete uploads and the projects' media (blob keys).
	Media blob.Store
	// Uploads is where the resumable upload writes its files by offsets, a
	// local store; a complete upload lands in Media. Nil: Media, which is
	// then a local one (the data directory's blob.Dir).
	Uploads   blob.LocalStore
	PublicURL string // base of the addresses handed out (upload and media links)
	// Limits of every organization; zero fields take the spec's defaults.
	quota.Limits
	// AllowPrivateImports lets videoUrl point at loopback and private
	// networks (a local test server); off, such imports are refused.
	AllowPrivateImports bool
	Logger              *slog.Logger // nil = discard

	// AllowPrivateWebhooks lets WEBHOOK conclusion actions name loopback
	// and private hosts; off, a url whose address is visible at create as
	// one is refused then (and package netguard refuses the rest when the
	// delivery connects).
	AllowPrivateWebhooks bool

	// Posts enqueues every pending post (the publish worker's job), in the
	// transaction that stores it. Nil enqueues nothing: posts stay pending.
	Posts PostEnqueuer
	// OnScheduleCreated is called after a publish schedule was stored (the
	// server wakes the scheduler); nil = nothing.
	OnScheduleCreated func()
	// ASR describes the speech recogniser for GET /healthz?detail=1
	// ("pocketsphinx", "none (pocketsphinx_continuous not found)"); "" = none.
	ASR string
	// Now is the rate limiter's clock; nil = time.Now. Tests move it to
	// check the window without sleeping.
	Now func() time.Time
	// UploadProgressTimeout ends an upload PUT whose body brings no byte
	// for this long; the body has no total deadline. 0 = the default.
	UploadProgressTimeout time.Duration
	// MediaLinks signs the media addresses handed out and checks those
	// requested; nil = one over Store with the default lifetimes.
	MediaLinks *medialink.Signer
	// OnThrottled is called with the reason of every 429 answered,
	// ThrottledRate, ThrottledPostRate, ThrottledConcurrent or
	// ThrottledAuth (the server counts them); nil = nothing.
	OnThrottled func(reason string)
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client failed API keys are counted by; none: the peer is.
	TrustedProxies []netip.Prefix
	// Ready is GET /readyz's check: nil while the database and the bucket
	// answer (dependency.Health.Ready); nil Ready is always ready.
	Ready func() error
}

// The reasons OnThrottled reports: the per-key rate limit, that of the
// posting endpoints, the cap on an organization's projects in flight (the
// X-Cap-Reason of its 429), and a client address's failed API keys.
const (
	ThrottledRate       = "rate"
	ThrottledPostRate   = "post_rate"
	ThrottledConcurrent = apitypes.CapReasonConcurrent
	ThrottledAuth       = "auth"
)

// RequiredTools are the programs clipperd cannot clip without, which
// /healthz requires on PATH: ffprobe reads every source, ffmpeg renders
// every clip.
var RequiredTools = []string{"ffmpeg", "ffprobe"}

// API holds the handlers' shared state.
type API struct {
	stores stores
	// damage is the first answer that failed on a damaged database
	// (store.IsDamage): it stays until a restart, which refuses to start on
	// it, and /healthz reports it.
	damage       atomic.Pointer[string]
	uploads      *upload.Sessions
	runner       ProjectEnqueuer
	copyJobs     CopyEnqueuer
	censorJobs   CensorEnqueuer
	media        blob.Store
	publicURL    string
	limits       quota.Limits
	allowPrivate bool
	log          *slog.Logger
	limiter      *keyLimiter
	postLimiter  *keyLimiter // the posting endpoints'
	asr          string
	// uploadProgress is the longest an upload body may bring no byte.
	uploadProgress time.Duration
	links          *medialink.Signer

	posts                PostEnqueuer
	scheduleCreated      func()
	throttled            func(reason string)
	allowPrivateWebhooks bool
	// authFails bounds failed API keys per client address (trustedProxies:
	// Config.TrustedProxies).
	authFails      *failbound.Limiter
	trustedProxies []netip.Prefix
	ready          func() error
}

// New returns the handler of every clipperd route.
func New(cfg Config) http.Handler {
	a := newAPI(cfg)
	mux := http.NewServeMux()

	// Core project and clip endpoints: bearer auth and the per-key rate limit.
	mux.Handle("POST /api/clip-projects", a.authed(a.limited(a.createProject)))
	mux.Handle("GET /api/clip-projects/{id}", a.authed(a.limited(a.getProject)))
	mux.Handle("POST /api/clip-projects/{id}/update-visibility", a.authed(a.limited(a.updateVisibility)))
	mux.Handle("GET /api/exportable-clips", a.authed(a.limited(a.exportableClips)))

	// Other API endpoints: bearer auth only (the spec rate-limits the core
	// ones); those that post clips or start jobs on them have a per-key
	// limit of their own (postLimited).
	mux.Handle("GET /api/brand-templates", a.authed(a.brandTemplates))
	mux.Handle("POST /api/upload-links", a.authed(a.createUploadLink))
	mux.Handle("GET /api/social-accounts", a.authed(a.socialAccounts))
	mux.Handle("POST /api/social-copy-jobs", a.authed(a.postLimited(a.createCopyJob)))
	mux.Handle("GET /api/social-copy-jobs/{jobId}", a.authed(a.getCopyJob))
	mux.Handle("POST /api/censor-jobs", a.authed(a.postLimited(a.createCensorJob)))
	mux.Handle("GET /api/censor-jobs/{jobId}", a.authed(a.getCensorJob))
	mux.Handle("POST /api/collections", a.authed(a.createCollection))
	mux.Handle("GET /api/collections", a.authed(a.listCollections))
	mux.Handle("DELETE /api/collections/{collectionId}", a.authed(a.deleteCollection))
	mux.Handle("POST /api/collections/{collectionId}/export", a.authed(a.exportCollection))
	mux.Handle("POST /api/collection-contents", a.authed(a.addCollectionContent))
	mux.Handle("POST /api/collection-contents/delete-collection-contents", a.authed(a.deleteCollectionContent))
	mux.Handle("POST /api/post-tasks", a.authed(a.postLimited(a.createPostTask)))
	mux.Handle("POST /api/publish-schedules", a.authed(a.postLimited(a.createPublishSchedule)))
	mux.Handle("DELETE /api/publish-schedules/{scheduleId}", a.authed(a.deletePublishSchedule))

	// Object storage: authorised by the unguessable upload and session ids,
	// like a signed URL, never by the API key.
	mux.HandleFunc("POST /storage/uploads/{uploadId}", a.startUpload)
	mux.HandleFunc("PUT /storage/sessions/{sessionId}", a.putUpload)

	// Rendered clips, like presigned links: no auth, a signature that has not
	// expired (package medialink).
	mux.HandleFunc("GET /media/{projectId}/{file}", a.serveMedia)

	mux.HandleFunc("GET /healthz", a.healthz)
	mux.HandleFunc("GET /readyz", a.readyz)
	mux.HandleFunc("GET /upgrade", a.upgradePage)
	return a.jsonMisses(mux) // requests are logged by the server (reqlog), the gallery's too
}

func newAPI(cfg Config) *API {
	cfg.Limits = cfg.WithDefaults()
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Runner == nil {
		cfg.Runner = noEnqueue{}
	}
	if cfg.OnScheduleCreated == nil {
		cfg.OnScheduleCreated = func() {}
	}
	if cfg.OnThrottled == nil {
		cfg.OnThrottled = func(string) {}
	}
	limiter, postLimiter := newLimiters(cfg.Store, cfg.RateLimit, cfg.PostRateLimit, cfg.Now, logger)
	links := cfg.MediaLinks
	if links == nil {
		links = medialink.New(cfg.Store, cfg.PublicURL, 0, 0, cfg.Now)
	}
	if missing := toolexec.Missing(RequiredTools...); len(missing) > 0 {
		logger.Error(notReady(missing), "missing", missing)
	}
	return &API{
		stores:     storesOf(cfg.Store),
		runner:     cfg.Runner,
		copyJobs:   cfg.CopyJobs,
		censorJobs: cfg.CensorJobs,
		uploads: upload.New(upload.Config{
			Store: cfg.Store, Files: uploadFiles(cfg), Media: cfg.Media, Logger: logger,
		}),
		media:        cfg.Media,
		publicURL:    strings.TrimSuffix(cfg.PublicURL, "/"),
		limits:       cfg.Limits,
		allowPrivate: cfg.AllowPrivateImports,
		log:          logger,
		limiter:      limiter,
		postLimiter:  postLimiter,
		asr:          cmp.Or(cfg.ASR, "none"),
		links:        links,

		uploadProgress: cmp.Or(cfg.UploadProgressTimeout, DefaultUploadProgressTimeout),

		posts:           cfg.Posts,
		scheduleCreated: cfg.OnScheduleCreated,
		throttled:       cfg.OnThrottled,

		allowPrivateWebhooks: cfg.AllowPrivateWebhooks,
		authFails:            failbound.ForStore(cfg.Store, failbound.ScopeAPIKeys, logger),
		trustedProxies:       cfg.TrustedProxies,
		ready:                cfg.Ready,
	}
}

// uploadFiles is the local store of the resumable uploads' files: Uploads,
// else Media when it is local (nil in handler tests that upload nothing).
func uploadFiles(cfg Config) blob.Local {
	if cfg.Uploads != nil {
		return cfg.Uploads
	}
	local, _ := cfg.Media.(blob.Local)
	return local
}

// upgradePage is where the monthly-cap answer's upgrade_url points: on a
// self-hosted server the cap is a flag, so the page says which.
func (a *API) upgradePage(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("clipperd: the monthly credit cap per organization is set with `clipperd serve --monthly-credits N` " +
		"(currently " + strconv.Itoa(a.limits.MonthlyCredits) + "). Restart the server with a higher value to raise it; " +
		"otherwise access resumes on the first day of next month (UTC).\n"))
}

// noEnqueue is the Runner of a Config without one.
type noEnqueue struct{}

func (noEnqueue) Enqueue(*store.Project) store.TxHook { return nil }

// healthz answers "ok" while clipperd serves. With ?detail=1 a line per
// component follows ("asr: pocketsphinx"); a missing recogniser is reported
// there, never as unhealthy. The X-Clipperd-ASR header says the same. While
// a required tool is not on PATH (checked on every call, so installing it
// makes the server ready) the answer is a 503 naming it: projects would
// wait in STALLED until it is there.
func (a *API) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Clipperd-ASR", a.asr)
	if missing := toolexec.Missing(RequiredTools...); len(missing) > 0 {
		writeError(w, http.StatusServiceUnavailable, errUnavailable, notReady(missing))
		return
	}
	if msg := a.databaseProblem(r.Context()); msg != "" {
		writeError(w, http.StatusServiceUnavailable, errUnavailable, msg)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	body := "ok"
	if r.URL.Query().Get("detail") != "" {
		body += "\nasr: " + a.asr + "\n"
	}
	_, _ = w.Write([]byte(body))
}

// readyz answers "ok" while the database and the bucket answer, else a
// JSON 503 saying which does not: a load balancer holds requests back
// from the node meanwhile. /healthz stays the liveness check (the process
// serves), which an outage of a dependency must not fail into a restart.
func (a *API) readyz(w http.ResponseWriter, _ *http.Request) {
	if a.ready != nil {
		if err := a.ready(); err != nil {
			writeError(w, http.StatusServiceUnavailable, errUnavailable, err.Error())
			return
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok"))
}

// databaseProblem is why the database cannot serve, "" while it can: a
// read of a table every request reads (the connection alone proves
// nothing), and any damage a request met since the start.
func (a *API) databaseProblem(ctx context.Context) string {
	// Once: a database away answers now, not after the store's retries.
	err := a.stores.health.Ping(dependency.Once(ctx))
	if err == nil {
		if seen := a.damage.Load(); seen != nil {
			return damaged(*seen)
		}
		return ""
	}
	if store.IsDamage(err) {
		return damaged(err.Error())
	}
	return "not ready: the database cannot be read: " + err.Error()
}

func damaged(err string) string {
	return "not ready: the database is damaged (" + err + "); stop clipperd and run `clipperd repair --data DIR`, " +
		"or restore the last backup (`clipperd restore`)"
}

// notReady says which required tools are missing and what to do.
func notReady(missing []string) string {
	return "not ready: " + strings.Join(missing, ", ") + " not found on PATH; install ffmpeg (it provides ffmpeg and ffprobe) " +
		"or put them on clipperd's PATH. Projects wait (" + string(apitypes.StageStalled) + ", retried) until they are there"
}
