// Package gallery is clipperd's web gallery for people: log in with an API
// key, see the organization's projects with their progress, watch and
// download their clips, and see collections and publish schedules. Pages
// are rendered on the server with html/template; the templates, a style
// sheet and one small script are embedded, so the gallery needs neither a
// front-end build nor the internet. It shows exactly what the key's
// organization may see through the API.
package gallery

import (
	"bytes"
	"cmp"
	"context"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/failbound"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/medialink"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// DefaultSessionTTL is how long a login lasts when Config.SessionTTL is zero.
const DefaultSessionTTL = 12 * time.Hour

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// Store is what the gallery reads of the store (every page is a read of
// the key's organization) and the sessions it keeps; MediaLinks' default
// signs with the store's media key.
type Store interface {
	medialink.KeySource
	LookupKey(ctx context.Context, key string) (store.Key, error)
	CreateGallerySession(ctx context.Context, idHash string, key store.Key, expires time.Time) error
	GallerySession(ctx context.Context, idHash string, now time.Time) (store.Key, error)
	DeleteGallerySession(ctx context.Context, idHash string) error
	OrgProjects(ctx context.Context, orgID string, offset, limit int) ([]store.ProjectSummary, int, error)
	OrgProjectsByID(ctx context.Context, orgID string, ids []string) ([]store.ProjectSummary, error)
	GetProject(ctx context.Context, id string) (*store.Project, error)
	ListClips(ctx context.Context, projectID string, offset, limit int) ([]store.Clip, error)
	ClipCollections(ctx context.Context, orgID, projectID string) (map[string][]store.Collection, error)
	OrgCollectionsWithClips(ctx context.Context, orgID string, offset, limit int) ([]store.CollectionWithClips, int, error)
	OrgSchedules(ctx context.Context, orgID, status string, limit int) ([]store.ScheduleWithPost, error)
	GetSocialAccount(ctx context.Context, orgID, id string) (*store.SocialAccount, error)
	BrollItems(ctx context.Context, orgID string) ([]*store.BrollItem, error)
}

// Config is what the gallery needs.
type Config struct {
	Store Store // required
	// MediaLinks signs the clips' media addresses, as the API does; nil =
	// one over Store with the default lifetimes.
	MediaLinks *medialink.Signer
	// PublicURL is the server's base address; an https one makes the
	// session cookie Secure (and __Host- prefixed).
	PublicURL  string
	Logger     *slog.Logger     // nil = discard
	SessionTTL time.Duration    // how long a login lasts; 0 = DefaultSessionTTL
	Now        func() time.Time // nil = time.Now; tests move it to expire sessions
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client failed logins are counted by; none: the peer is the
	// client.
	TrustedProxies []netip.Prefix
	// OnThrottled is called with ThrottledLogin for every login refused
	// with a 429 (the server counts them); nil = nothing.
	OnThrottled func(reason string)
}

// ThrottledLogin is the reason OnThrottled reports: a client's failed
// login attempts ran out.
const ThrottledLogin = "login"

// Gallery serves the /ui/ pages.
type Gallery struct {
	store  Store
	links  *medialink.Signer
	log    *slog.Logger
	ttl    time.Duration
	now    func() time.Time
	secure bool
	pages  map[string]*template.Template
	logins *failbound.Limiter
	// trustedProxies: see Config.TrustedProxies.
	trustedProxies []netip.Prefix
	throttled      func(reason string)
}

type callerKey struct{}

// caller is the key of the request's session.
func caller(r *http.Request) store.Key {
	k, _ := r.Context().Value(callerKey{}).(store.Key)
	return k
}

// withCaller is r carrying the key of its session.
func withCaller(r *http.Request, key store.Key) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), callerKey{}, key))
}

// New returns the handler of GET / (a redirect to /ui/) and of /ui/.
func New(cfg Config) (http.Handler, error) {
	if cfg.Store == nil {
		return nil, errors.New("gallery: Store is required")
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	g := &Gallery{
		store: cfg.Store, links: cfg.MediaLinks, log: cfg.Logger, ttl: cmp.Or(cfg.SessionTTL, DefaultSessionTTL),
		now: cfg.Now, secure: strings.HasPrefix(cfg.PublicURL, "https://"),
		pages: pages, logins: failbound.ForStore(cfg.Store, failbound.ScopeLogins, cfg.Logger), trustedProxies: cfg.TrustedProxies, throttled: cfg.OnThrottled,
	}
	if g.throttled == nil {
		g.throttled = func(string) {}
	}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	if g.now == nil {
		g.now = time.Now
	}
	if g.links == nil {
		g.links = medialink.New(cfg.Store, cfg.PublicURL, 0, 0, cfg.Now)
	}
	static, err := fs.Sub(staticFiles, "static")
	if err != nil {
		return nil, err
	}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ui/", http.StatusFound)
	})
	mux.HandleFunc("GET /ui/login", g.loginForm)
	mux.HandleFunc("POST /ui/login", g.login)
	mux.HandleFunc("POST /ui/logout", g.logout)
	mux.HandleFunc("GET /ui/logout", g.logoutPage)
	mux.Handle("GET /ui/static/", http.StripPrefix("/ui/static/", http.FileServerFS(static)))
	mux.Handle("GET /ui/{$}", g.authed(g.projects))
	mux.Handle("GET /ui/progress", g.authedJSON(g.progress))
	mux.Handle("GET /ui/projects/{id}", g.authed(g.project))
	mux.Handle("GET /ui/collections", g.authed(g.collections))
	mux.Handle("GET /ui/schedules", g.authed(g.schedules))
	mux.Handle("GET /ui/broll", g.authed(g.broll))
	mux.Handle("/ui/", unrouted(g.authed(func(w http.ResponseWriter, r *http.Request) {
		g.notFound(w, r, "There is no page at this address.")
	})))
	// Cross-origin POSTs (a form on another site logging the visitor out or
	// in) are refused; SameSite=Strict already keeps the cookie from them.
	return g.headers(http.NewCrossOriginProtection().Handler(mux)), nil
}

// unrouted serves a catch-all's requests as ones no route took: the
// catch-all's pattern ("/ui/") is not their route, and the metrics count
// them as "other".
func unrouted(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Pattern = ""
		h.ServeHTTP(w, r)
	})
}

// parsePages parses each page template with the layout.
func parsePages() (map[string]*template.Template, error) {
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, name := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(name, "templates/"), ".html")
		if base == "layout" {
			continue
		}
		t, err := template.New(base).Funcs(funcs).ParseFS(templateFiles, "templates/layout.html", name)
		if err != nil {
			return nil, err
		}
		pages[base] = t
	}
	return pages, nil
}

// contentPolicy is the Content-Security-Policy of every answer: everything
// from this server only (so no inline script); media also from blob:. The
// clips' addresses are path-only, so they come from whatever name the
// visitor reached the server by.
const contentPolicy = "default-src 'self'; media-src 'self' blob:; img-src 'self' data:; script-src 'self'; style-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// headers sets the security headers of every gallery answer.
func (g *Gallery) headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

// authed serves pages to a valid session and sends everyone else to the
// login form.
func (g *Gallery) authed(next http.HandlerFunc) http.Handler {
	return g.withSession(next, func(w http.ResponseWriter, r *http.Request, err error) {
		if errors.Is(err, errNoSession) {
			http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
			return
		}
		g.fail(w, r, err)
	})
}

// withSession serves next to a valid session with its caller, and answers
// every other request through refuse (err is errNoSession, or why the
// session could not be read).
func (g *Gallery) withSession(next http.HandlerFunc, refuse func(http.ResponseWriter, *http.Request, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, err := g.authenticate(r)
		if err != nil {
			refuse(w, r, err)
			return
		}
		next(w, withCaller(r, key))
	})
}

// page is what every page template gets: its title, the caller's org
// (empty on the login form) and the page's own data.
type page struct {
	Title string
	OrgID string
	Data  any
}

// render writes page name with status; the page is rendered before
// anything is written, so a failing template answers a plain 500.
func (g *Gallery) render(w http.ResponseWriter, r *http.Request, status int, name, title string, data any) {
	var buf bytes.Buffer
	if err := g.pages[name].ExecuteTemplate(&buf, "layout", page{Title: title, OrgID: caller(r).OrgID, Data: data}); err != nil {
		g.log.Error("gallery page failed", "page", name, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// notFound answers the 404 page: a missing project and another org's are
// told alike.
func (g *Gallery) notFound(w http.ResponseWriter, r *http.Request, msg string) {
	g.render(w, r, http.StatusNotFound, "notfound", "Not found", msg)
}

// fail answers an unexpected error with the error page; the details go to
// the log only.
func (g *Gallery) fail(w http.ResponseWriter, r *http.Request, err error) {
	g.log.Error("gallery request failed", "path", r.URL.Path, "err", err)
	if store.IsFull(err) {
		// As the API answers a full disk: 507, to retry once space is freed.
		w.Header().Set("Retry-After", strconv.Itoa(fullRetryAfter))
		g.render(w, r, http.StatusInsufficientStorage, "notfound", "Storage full",
			"The server's storage is full; try again once space has been freed.")
		return
	}
	g.render(w, r, http.StatusInternalServerError, "notfound", "Something went wrong",
		"The page could not be read; the server log says why.")
}

// fullRetryAfter is the Retry-After of a 507, in seconds, as the API's.
const fullRetryAfter = 60
