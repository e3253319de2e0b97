package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// countingProxy sits between terraform and clipperd and counts what crosses
// it, so the numbers do not depend on either side's own logging.
type countingProxy struct {
	mu          sync.Mutex
	byRoute     map[string]int
	status429   int
	concurrent  int
	total       int
	server      *httptest.Server
	upstreamURL *url.URL
	start       time.Time
	// Timeline is one line per request: seconds since start, method, route, status.
	Timeline []string
	// limitedAt are the times of requests to the endpoints the service
	// rate-limits (projects and clips), in order.
	limitedAt []float64
	// collectionLimit, when set, makes the server list the account's
	// collections that many to a page (a service with small pages).
	collectionLimit int
}

func newCountingProxy(upstream string) (*countingProxy, error) {
	u, err := url.Parse(upstream)
	if err != nil {
		return nil, err
	}
	p := &countingProxy{byRoute: map[string]int{}, upstreamURL: u, start: time.Now()}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(resp *http.Response) error {
		p.mu.Lock()
		defer p.mu.Unlock()
		at := time.Since(p.start).Seconds()
		p.Timeline = append(p.Timeline, fmt.Sprintf("%6.1fs %s %s %s %d", at,
			resp.Request.Method, route(resp.Request.URL.Path), detail(resp.Request.URL), resp.StatusCode))
		if path := resp.Request.URL.Path; strings.HasPrefix(path, "/api/clip-projects") || strings.HasPrefix(path, "/api/exportable-clips") {
			p.limitedAt = append(p.limitedAt, at)
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			p.status429++
			if resp.Header.Get("X-Cap-Reason") == "concurrent" {
				p.concurrent++
			}
		}
		return nil
	}
	p.server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.total++
		p.byRoute[r.Method+" "+route(r.URL.Path)+routeQuery(r.URL)]++
		limit := p.collectionLimit
		p.mu.Unlock()
		if limit > 0 && r.Method == http.MethodGet && r.URL.Path == "/api/collections" {
			q := r.URL.Query()
			q.Set("limit", strconv.Itoa(limit))
			r.URL.RawQuery = q.Encode()
		}
		rp.ServeHTTP(w, r)
	}))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p.server.Listener = l
	p.server.Start()
	return p, nil
}

// route folds ids out of a path: /api/clip-projects/abc -> /api/clip-projects/{id}.
func route(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if len(parts) >= 3 && parts[0] == "api" {
		parts[2] = "{id}"
	} else if len(parts) >= 2 && parts[0] != "api" {
		parts = []string{parts[0], "…"}
	}
	return "/" + strings.Join(parts, "/")
}

// routeQuery tells apart the listings of one route: the q of
// /api/exportable-clips (by project, by collection).
func routeQuery(u *url.URL) string {
	if u.Path == "/api/exportable-clips" {
		return "?q=" + u.Query().Get("q")
	}
	return ""
}

// detail tells requests of one route apart in the timeline: the query, or
// the id the route folds away.
func detail(u *url.URL) string {
	if u.RawQuery != "" {
		return u.RawQuery
	}
	if parts := strings.Split(strings.Trim(u.Path, "/"), "/"); len(parts) >= 3 && parts[0] == "api" {
		return parts[2]
	}
	return ""
}

// reset forgets what was counted so far, to measure one step of a run.
func (p *countingProxy) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byRoute, p.total, p.status429, p.concurrent = map[string]int{}, 0, 0, 0
	p.Timeline, p.limitedAt, p.start = nil, nil, time.Now()
}

func (p *countingProxy) URL() string { return p.server.URL }
func (p *countingProxy) Close()      { p.server.Close() }
