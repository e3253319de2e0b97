package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/s3blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/gallery"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/janitor"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/medialink"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/metrics"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/pipeline"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

// apiKeyEnv names the development key the server ensures at start.
const apiKeyEnv = "CLIPPERD_API_KEY"

// minAPIKeyLen is the shortest CLIPPERD_API_KEY serve accepts: the store
// keeps a fast hash of keys, which is only safe for keys that cannot be
// guessed (the keys clipperd makes are 51 characters, 192 random bits).
const minAPIKeyLen = 32

// serve runs the server until ctx ends (SIGINT/SIGTERM), then stops it gracefully.
func serve(ctx context.Context, args []string, stderr io.Writer) error {
	cfg, err := parseServe(args, stderr)
	if err != nil {
		return err
	}
	srv, err := server.Start(ctx, *cfg)
	if err != nil {
		return err
	}
	if cfg.APIKey != "" {
		cfg.Logger.Info("development key from "+apiKeyEnv+" is active", "org", server.DevOrgID, "user", server.DevUserID)
	}
	<-ctx.Done()
	cfg.Logger.Info("stopping")
	return srv.Close()
}

// parseServe reads and checks serve's command line (args after "serve")
// into its server's Config; errors name the flag at fault.
func parseServe(args []string, stderr io.Writer) (*server.Config, error) {
	fs, cfg, work := serveFlagSet(stderr)
	if err := work.parse(fs, cfg, args); err != nil {
		return nil, err
	}
	cfg.APIOnly = cfg.Workers == 0
	if err := checkClientLimits(cfg); err != nil {
		return nil, err
	}
	limits := map[string]int{
		"rate-limit": cfg.RateLimit, "post-rate-limit": cfg.PostRateLimit, "max-concurrent": cfg.MaxConcurrent,
		"max-collections": cfg.MaxCollections,
	}
	for name, v := range limits {
		if v < 1 {
			return nil, fmt.Errorf("%w: --%s must be at least 1, not %d", errUsage, name, v)
		}
	}
	if cfg.GallerySessionTTL < time.Minute {
		return nil, fmt.Errorf("%w: --gallery-session-ttl must be at least 1m, not %s", errUsage, cfg.GallerySessionTTL)
	}
	cfg.APIKey = os.Getenv(apiKeyEnv)
	if n := len(cfg.APIKey); n > 0 && n < minAPIKeyLen {
		return nil, fmt.Errorf("%w: %s is %d characters; it must be at least %d (make one with `openssl rand -hex 24`)", errUsage, apiKeyEnv, n, minAPIKeyLen)
	}
	return cfg, nil
}

// serveFlagSet defines serve's flags, into the returned Config.
func serveFlagSet(stderr io.Writer) (*flag.FlagSet, *server.Config, *workFlags) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := &server.Config{}
	work := addWorkFlags(fs, cfg, serveWorkersUsage)
	addServeFlags(fs, cfg)
	return fs, cfg, work
}

// workerFlagSet defines worker's flags, into the returned Config.
func workerFlagSet(stderr io.Writer) (*flag.FlagSet, *server.Config, *workFlags) {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := &server.Config{}
	work := addWorkFlags(fs, cfg, "projects this process runs at once (its pipeline workers); at least 1")
	// Off unless asked: beside a serve on the same box the default port is taken.
	fs.Lookup("metrics-listen").DefValue, cfg.MetricsListen = "off", "off"
	return fs, cfg, work
}

// serveWorkersUsage is what --workers means to serve.
const serveWorkersUsage = "projects this process runs at once (its pipeline workers); 0 makes an API-only node that runs no job of any kind, for `clipperd worker` processes to run"

// addServeFlags defines the flags serve has beyond the work flags (its API's
// listener and limits), into cfg.
func addServeFlags(fs *flag.FlagSet, cfg *server.Config) {
	fs.StringVar(&cfg.Listen, "listen", server.DefaultListen, "address to listen on")
	fs.IntVar(&cfg.RateLimit, "rate-limit", quota.DefaultRateLimit, "requests per minute per API key on the project and clip endpoints")
	fs.IntVar(&cfg.PostRateLimit, "post-rate-limit", quota.DefaultPostRateLimit, "requests per minute per API key on post tasks, publish schedules, social copy and censor jobs (a budget apart from --rate-limit's)")
	fs.IntVar(&cfg.MaxConcurrent, "max-concurrent", quota.DefaultMaxConcurrent, "projects in flight per organization")
	fs.IntVar(&cfg.MaxCollections, "max-collections", quota.DefaultMaxCollections, "collections per organization")
	fs.DurationVar(&cfg.GallerySessionTTL, "gallery-session-ttl", gallery.DefaultSessionTTL, "how long a login to the web gallery (/ui/) lasts")
	fs.DurationVar(&cfg.ReadTimeout, "read-timeout", server.DefaultReadTimeout, "longest time to read a request with its body (upload bodies: see --upload-progress-timeout)")
	fs.DurationVar(&cfg.WriteTimeout, "write-timeout", server.DefaultWriteTimeout, "longest time to write an answer (media downloads: per write)")
	fs.DurationVar(&cfg.IdleTimeout, "idle-timeout", server.DefaultIdleTimeout, "how long a keep-alive connection may wait for its next request")
	fs.DurationVar(&cfg.UploadProgressTimeout, "upload-progress-timeout", server.DefaultUploadProgressTimeout, "an upload PUT ends when no byte of its body arrives for this long")
	fs.IntVar(&cfg.MaxConnsPerIP, "max-conns-per-ip", server.DefaultMaxConnsPerIP, "open connections per client address; new ones over it are closed at once (0 = no cap)")
	fs.Func("trusted-proxies", "CIDR[,CIDR]: reverse proxies in front of clipperd; the gallery and the API count failed logins and API keys of a request from one by the right-most X-Forwarded-For address not in them (default: by the peer)",
		func(v string) (err error) {
			cfg.TrustedProxies, err = parseCIDRs(v)
			return err
		})
}

// worker runs a worker node until ctx ends (SIGINT/SIGTERM): the job
// queues, the pipeline's loop, the publish scheduler and the janitor, with
// no API; then it stops gracefully, handing back the runs it cuts short.
func worker(ctx context.Context, args []string, stderr io.Writer) error {
	cfg, err := parseWorker(args, stderr)
	if err != nil {
		return err
	}
	srv, err := server.StartWorker(ctx, *cfg)
	if err != nil {
		return err
	}
	<-ctx.Done()
	cfg.Logger.Info("stopping")
	return srv.Close()
}

// parseWorker reads and checks worker's command line (args after "worker")
// into its server's Config; errors name the flag at fault.
func parseWorker(args []string, stderr io.Writer) (*server.Config, error) {
	fs, cfg, work := workerFlagSet(stderr)
	if err := work.parse(fs, cfg, args); err != nil {
		return nil, err
	}
	if cfg.Workers < 1 {
		return nil, fmt.Errorf("%w: --workers must be at least 1 for a worker, not %d", errUsage, cfg.Workers)
	}
	if cfg.PublicURL == "" {
		return nil, fmt.Errorf("%w: --public-url is required: the address of the API (clipperd serve) that the media addresses of conclusion emails are made under", errUsage)
	}
	return cfg, nil
}

// workFlags are the flags of what work needs, which serve and worker share:
// where the state and media are, the limits a run or a fired schedule
// applies, how conclusion actions go out, the recogniser, the janitor,
// metrics and logs.
type workFlags struct {
	level, storageQuota, minRate *string
}

// addWorkFlags defines the work flags on fs, into cfg; workersUsage says
// what --workers means to the command.
func addWorkFlags(fs *flag.FlagSet, cfg *server.Config, workersUsage string) *workFlags {
	fs.StringVar(&cfg.DataDir, "data", "./clipperd-data", "data directory (database, uploads, media, temporary files)")
	fs.StringVar(&cfg.Database, "database", "", databaseUsage)
	fs.StringVar(&cfg.MasterKeyFile, "master-key-file", "", masterKeyFileUsage)
	fs.StringVar(&cfg.Media, "media", "", "where the media are kept: a directory (default: the data directory) or "+s3blob.URLForm+", with credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN")
	fs.StringVar(&cfg.PublicURL, "public-url", "", "base of the addresses handed out, the API's address (serve: default http://<listen>; worker: required)")
	fs.IntVar(&cfg.Workers, "workers", server.DefaultWorkers, workersUsage)
	fs.DurationVar(&cfg.Lease, "pipeline-lease", pipeline.DefaultLease, "how long a project run holds its project without renewing; a process killed mid-run has its projects resumed by another within about this long")
	fs.IntVar(&cfg.ImportWorkers, "import-workers", server.DefaultImportWorkers, "imports of sources from the network (links, video pages) this process runs at once, apart from its --workers, so a slow source holds no render slot")
	fs.IntVar(&cfg.OrgWorkers, "org-workers", 0, "pipeline workers of this process one organization's projects may hold at once (default: --workers minus 1, at least 1, so another organization's project starts at once); counted per process, and a run handed back by a stopped worker, or taken over from a dead one, takes any free worker over it; a single-organization installation sets it to --workers")
	fs.DurationVar(&cfg.ImportTimeout, "import-timeout", pipeline.DefaultImportTimeout, "longest import of a source from the network (a link or a video page), first request to last byte; past it the project fails")
	fs.StringVar(&cfg.EncodePreset, "encode-preset", media.DefaultEncodePreset, "x264's preset for the clips this process renders, "+strings.Join(media.EncodePresets, ", ")+": a faster one spends less CPU for larger files at the same quality (ultrafast: about a third of veryfast's CPU, files about 2.7 times larger)")
	minRate := fs.String("import-min-rate", quota.FormatSize(pipeline.DefaultImportMinRate), "bytes per second a download from a link must average over every 30 s, e.g. 64KiB; below it the project fails; 0 = no floor")
	fs.IntVar(&cfg.MonthlyCredits, "monthly-credits", quota.DefaultMonthlyCredits, "credits per organization and calendar month")
	fs.StringVar(&cfg.SMTP, "smtp", "", "HOST:PORT of an SMTP relay for EMAIL actions (default: write .eml files under DATA/outbox)")
	fs.BoolVar(&cfg.AllowPrivateImports, "allow-private-imports", false, "allow videoUrl on loopback and private networks")
	fs.BoolVar(&cfg.AllowPrivateWebhooks, "allow-private-webhooks", false, "allow webhooks (conclusion actions, webhook publish destinations) to loopback and private networks")
	fs.DurationVar(&cfg.MediaURLTTL, "media-url-ttl", medialink.DefaultTTL, "how long the signed media addresses handed out work (projects of DEFAULT visibility)")
	fs.DurationVar(&cfg.PublicMediaURLTTL, "public-media-url-ttl", medialink.DefaultPublicTTL, "how long the signed media addresses of PUBLIC and PUBLIC_VIEW projects work")
	fs.StringVar(&cfg.ASR, "asr", transcribe.DefaultKind(), "speech recogniser of transcripts: pocketsphinx (English, offline), openai (an OpenAI-compatible server at --asr-url: whatever languages its model hears), command (--asr-command) or none; default pocketsphinx when "+transcribe.PocketsphinxTool+" is on PATH")
	fs.StringVar(&cfg.ASRCommand, "asr-command", "", "with --asr command: a shell command line; {input} is a 16 kHz mono WAV, {output} the JSON file of words to write, {lang} the sourceLang")
	fs.StringVar(&cfg.ASRURL, "asr-url", "", "with --asr openai: the server's address, e.g. http://127.0.0.1:8000 (clipperd posts to /v1/audio/transcriptions under it); its API key, if it needs one, from "+transcribe.ASRKeyEnv)
	fs.StringVar(&cfg.ASRModel, "asr-model", transcribe.DefaultOpenAIModel, "with --asr openai: the model field of each request")
	fs.DurationVar(&cfg.UploadExpiry, "upload-expiry", janitor.DefaultUploadExpiry, "age after which an upload never completed, or never used by a project, is deleted")
	fs.DurationVar(&cfg.JanitorPeriod, "janitor-period", janitor.DefaultPeriod, "time between the passes that delete expired uploads and project media")
	fs.DurationVar(&cfg.ShutdownGrace, "shutdown-grace", server.DefaultShutdownGrace, "on SIGTERM or SIGINT, how long requests in flight and running jobs get to finish; a project's run still going then is handed back, to another worker or the next start, without counting a failure (a stop takes a few seconds more than this: systemd's TimeoutStopSec must be well above it)")
	fs.StringVar(&cfg.MetricsListen, "metrics-listen", metrics.DefaultListen, `address of the Prometheus metrics (GET /metrics), a listener apart from the API's that needs no key; "" or "off" serves none`)
	fs.DurationVar(&cfg.DependencyRetry, "dependency-retry", dependency.DefaultWindow, "how long a call to the database or the bucket that gets no answer (refused, reset, a 5xx, a restart) is retried before its stage fails; 0 = not retried")
	return &workFlags{
		level:        fs.String("log-level", "info", "log level: debug, info, warn or error"),
		storageQuota: fs.String("org-storage-quota", "0", "bytes of uploads, project media and posts' copies of clips (on a bucket; on a directory they share the clip's bytes) per organization, e.g. 20GiB or 500MB; 0 = no quota (creates, and posts of fired schedules, are held to it)"),
		minRate:      minRate,
	}
}

// parse parses args with fs, whose work flags w are, and checks them into
// cfg.
func (w *workFlags) parse(fs *flag.FlagSet, cfg *server.Config, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return w.check(fs, cfg)
}

// check checks the parsed work flags and completes cfg: its logger, and
// "off" metrics as none.
func (w *workFlags) check(fs *flag.FlagSet, cfg *server.Config) error {
	if err := server.CheckMedia(cfg.Media); err != nil {
		return fmt.Errorf("%w: --media %v", errUsage, err)
	}
	cfg.MasterKey = os.Getenv(masterkey.Env)
	cfg.ASRAPIKey = os.Getenv(transcribe.ASRKeyEnv)
	if cfg.MetricsListen == "off" {
		cfg.MetricsListen = "" // server.Config's "no metrics"
	}
	cfg.DependencyRetry = cmp.Or(cfg.DependencyRetry, -1) // server.Config's "no retry"
	if cfg.Workers < 0 {
		return fmt.Errorf("%w: --workers must be 0 or more, not %d", errUsage, cfg.Workers)
	}
	if cfg.ImportWorkers < 1 {
		return fmt.Errorf("%w: --import-workers must be at least 1, not %d", errUsage, cfg.ImportWorkers)
	}
	if cfg.OrgWorkers < 0 {
		return fmt.Errorf("%w: --org-workers must be 0 (the default share) or more, not %d", errUsage, cfg.OrgWorkers)
	}
	if cfg.ImportTimeout < time.Second {
		return fmt.Errorf("%w: --import-timeout must be at least 1s, not %s", errUsage, cfg.ImportTimeout)
	}
	rate, err := quota.ParseSize(*w.minRate)
	if err != nil {
		return fmt.Errorf("%w: --import-min-rate: %v", errUsage, err)
	}
	cfg.ImportMinRate = cmp.Or(rate, -1) // pipeline's "no floor"
	if err := media.CheckEncodePreset(cfg.EncodePreset); err != nil {
		return fmt.Errorf("%w: --encode-preset: %v", errUsage, err)
	}
	if cfg.ShutdownGrace <= 0 {
		return fmt.Errorf("%w: --shutdown-grace must be above 0, not %s", errUsage, cfg.ShutdownGrace)
	}
	if cfg.Lease < time.Second {
		return fmt.Errorf("%w: --pipeline-lease must be at least 1s, not %s", errUsage, cfg.Lease)
	}
	if err := storageFlags(cfg, *w.storageQuota); err != nil {
		return err
	}
	if cfg.MonthlyCredits < 1 {
		return fmt.Errorf("%w: --monthly-credits must be at least 1, not %d", errUsage, cfg.MonthlyCredits)
	}
	for name, d := range map[string]time.Duration{"media-url-ttl": cfg.MediaURLTTL, "public-media-url-ttl": cfg.PublicMediaURLTTL} {
		if d < time.Minute {
			return fmt.Errorf("%w: --%s must be at least 1m, not %s", errUsage, name, d)
		}
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*w.level)); err != nil {
		return fmt.Errorf("%w: --log-level must be debug, info, warn or error, not %q", errUsage, *w.level)
	}
	cfg.Logger = slog.New(slog.NewTextHandler(fs.Output(), &slog.HandlerOptions{Level: lvl}))
	if cfg.ASR == transcribe.KindNone && !asrSet(fs) {
		cfg.Logger.Warn("no transcripts: " + transcribe.PocketsphinxTool + " is not on PATH (install pocketsphinx and pocketsphinx-en-us, or pass --asr command)")
	}
	return nil
}

// storageFlags checks the storage lifecycle flags into cfg.
func storageFlags(cfg *server.Config, quotaSize string) error {
	n, err := quota.ParseSize(quotaSize)
	if err != nil {
		return fmt.Errorf("%w: --org-storage-quota: %v", errUsage, err)
	}
	cfg.StorageQuota = n
	if cfg.UploadExpiry <= 0 || cfg.JanitorPeriod <= 0 {
		return fmt.Errorf("%w: --upload-expiry and --janitor-period must be above 0, not %s and %s", errUsage, cfg.UploadExpiry, cfg.JanitorPeriod)
	}
	return nil
}

// checkClientLimits refuses timeouts that are not positive and a negative
// connection cap; --max-conns-per-ip 0 lifts the cap.
func checkClientLimits(cfg *server.Config) error {
	timeouts := map[string]time.Duration{
		"read-timeout": cfg.ReadTimeout, "write-timeout": cfg.WriteTimeout,
		"idle-timeout": cfg.IdleTimeout, "upload-progress-timeout": cfg.UploadProgressTimeout,
	}
	for name, d := range timeouts {
		if d <= 0 {
			return fmt.Errorf("%w: --%s must be above 0, not %s", errUsage, name, d)
		}
	}
	switch {
	case cfg.MaxConnsPerIP < 0:
		return fmt.Errorf("%w: --max-conns-per-ip must be 0 (no cap) or more, not %d", errUsage, cfg.MaxConnsPerIP)
	case cfg.MaxConnsPerIP == 0:
		cfg.MaxConnsPerIP = -1 // server.Config's "no cap"
	}
	return nil
}

// asrSet reports whether --asr was given (the default none warns, a chosen none does not).
func asrSet(fs *flag.FlagSet) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "asr" })
	return set
}

// parseCIDRs reads a comma-separated list of CIDR prefixes; a bare address
// is its own /32 or /128.
func parseCIDRs(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		p, err := netip.ParsePrefix(item)
		if err != nil {
			addr, aerr := netip.ParseAddr(item)
			if aerr != nil {
				return nil, fmt.Errorf("%q is not a CIDR prefix like 10.0.0.0/8 or an address", item)
			}
			p = netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
