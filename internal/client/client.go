// Package client is the embedded HTTP client of the clipping service API. It is
// used by the Terraform provider and has no Terraform imports: the provider
// adapts the Logger interface to its own logging.
//
// Every endpoint of the service has one typed method. Retries, the proactive
// rate limiter and error typing live here, so resources never deal with HTTP.
package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// Defaults applied by New when a Config field is zero.
const (
	DefaultBaseURL           = "http://127.0.0.1:8787"
	DefaultRequestsPerMinute = 30
	DefaultUserAgent         = "terraform-provider-clipper/dev"
	// DefaultReadTimeout bounds each attempt of a GET: a server that accepts
	// the connection but never answers must not hold a read for the whole
	// of the caller's timeout. Reads are small and quick; an attempt that
	// times out is retried like any network error.
	DefaultReadTimeout = 30 * time.Second
)

// Config configures a Client.
type Config struct {
	BaseURL           string // default "http://127.0.0.1:8787"; trailing slash tolerated
	APIKey            string // required: New fails with a clear error when empty
	OrgID             string // optional; sent as header x-svc-org-id on every request
	RequestsPerMinute int    // default 30
	// MaxConcurrentProjects is the organization's cap on projects in flight
	// (default 4, the Pro Beta and Max plans; 50 on Business). Creates wait
	// for a free slot among the clients of Shared instead of being refused.
	MaxConcurrentProjects int
	ReadTimeout           time.Duration // per attempt of a GET; default 30s
	UserAgent             string        // default "terraform-provider-clipper/dev"
	HTTPClient            *http.Client  // optional
	Logger                Logger        // optional; nil = no logging
	// Shared is the state this client shares with the other clients built
	// with it (see Shared); nil = a Shared of this client's own.
	Shared *Shared
}

// Logger receives request/response logs; the provider adapts it to tflog. The
// client masks the API key (Authorization header) before anything reaches the
// Logger.
// Warn is for what a user should see without asking for debug logs: an
// outage the client is riding out (a request sent again after a network or
// server error, a failed poll of a project being waited for).
type Logger interface {
	Warn(ctx context.Context, msg string, fields map[string]any)
	Debug(ctx context.Context, msg string, fields map[string]any)
	Trace(ctx context.Context, msg string, fields map[string]any)
}

// Stats counts what a client has sent and received, for callers that
// report on their use of the API.
type Stats struct {
	Requests       int64 // HTTP requests sent, including retries and upload requests
	Retries        int64 // requests sent again after a failure or a 429
	RateLimited429 int64 // 429 responses of any kind
	Concurrent429  int64 // 429 responses carrying X-Cap-Reason: concurrent
}

// Client talks to one clipping service with one API key. It is safe for
// concurrent use.
type Client struct {
	baseURL   string // no trailing slash
	baseHost  string // scheme://host of baseURL, to decide where credentials may go
	apiKey    string
	orgID     string
	userAgent string
	http      *http.Client
	log       Logger
	limiter   *sharedLimiter
	slots     *slotPool  // the organization's concurrent-project slots, shared through Config.Shared
	clips     *clipCache // listings of COMPLETE projects, shared through Config.Shared
	pace      *paceModel // what waits learned about processing times
	policy    retryPolicy
	chunkSize int64         // upload chunk size in bytes
	readLimit time.Duration // per attempt of a GET

	requests, retries, limited, concurrent atomic.Int64
}

// New checks cfg, applies defaults and returns a Client. Clients created with
// the same Shared, BaseURL and APIKey share one rate limiter; with the same
// OrgID too, they share the concurrent-project slots, the clip listings of
// COMPLETE projects and the processing times learned.
func New(cfg Config) (*Client, error) {
	if strings.TrimSpace(cfg.APIKey) == "" {
		return nil, errors.New("client config: api_key must not be empty")
	}
	base := strings.TrimSpace(cfg.BaseURL)
	if base == "" {
		base = DefaultBaseURL
	}
	base = strings.TrimRight(base, "/")
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("client config: base_url %q is not a valid URL: %w", cfg.BaseURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client config: base_url %q must be an absolute http or https URL", cfg.BaseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("client config: base_url %q must not carry a query or fragment", cfg.BaseURL)
	}
	rpm := cfg.RequestsPerMinute
	if rpm == 0 {
		rpm = DefaultRequestsPerMinute
	}
	if rpm < 0 {
		return nil, fmt.Errorf("client config: requests_per_minute must be positive, got %d", rpm)
	}
	maxConcurrent := cfg.MaxConcurrentProjects
	if maxConcurrent == 0 {
		maxConcurrent = DefaultMaxConcurrentProjects
	}
	if maxConcurrent < 0 {
		return nil, fmt.Errorf("client config: max_concurrent_projects must be positive, got %d", maxConcurrent)
	}
	readLimit := cfg.ReadTimeout
	if readLimit == 0 {
		readLimit = DefaultReadTimeout
	}
	if readLimit < 0 {
		return nil, fmt.Errorf("client config: read timeout must be positive, got %s", readLimit)
	}
	ua := cfg.UserAgent
	if ua == "" {
		ua = DefaultUserAgent
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient()
	}
	shared := cfg.Shared
	if shared == nil {
		shared = new(Shared)
	}
	org := shared.org(base, cfg.APIKey, cfg.OrgID, maxConcurrent)
	return &Client{
		baseURL:   base,
		baseHost:  u.Scheme + "://" + u.Host,
		apiKey:    cfg.APIKey,
		orgID:     cfg.OrgID,
		userAgent: ua,
		http:      hc,
		log:       cfg.Logger,
		limiter:   shared.limiter(base, cfg.APIKey, rpm),
		slots:     org.slots,
		clips:     org.clips,
		pace:      org.pace,
		policy:    defaultRetryPolicy,
		chunkSize: defaultChunkSize,
		readLimit: readLimit,
	}, nil
}

// Stats returns a snapshot of the request counters.
func (c *Client) Stats() Stats {
	return Stats{
		Requests:       c.requests.Load(),
		Retries:        c.retries.Load(),
		RateLimited429: c.limited.Load(),
		Concurrent429:  c.concurrent.Load(),
	}
}

// defaultHTTPClient has no overall Timeout, because an upload chunk of a large
// file may legitimately take minutes; callers bound calls with ctx instead, and
// the transport bounds the phases that should be quick.
func defaultHTTPClient() *http.Client {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		// Another package replaced the default transport; use it as is.
		return &http.Client{Transport: http.DefaultTransport}
	}
	t = t.Clone()
	t.DialContext = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = 15 * time.Second
	t.ResponseHeaderTimeout = 2 * time.Minute
	return &http.Client{Transport: t}
}
