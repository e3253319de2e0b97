package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// DefaultListen is the metrics address of `clipperd serve`: loopback, so
// the metrics need no key and reach no one the operator did not let in.
const DefaultListen = "127.0.0.1:9787"

// Endpoint is a listener serving GET /metrics, and the probes of a node
// (a worker has no other listener): GET /healthz (liveness) and GET
// /readyz (the database and the bucket answer).
type Endpoint struct {
	http   *http.Server
	addr   string
	served chan error
}

// Listen serves m's metrics at addr ("127.0.0.1:0" picks a free port) until
// Close.
func (m *Metrics) Listen(addr string) (*Endpoint, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	mux.HandleFunc("GET /healthz", healthz)
	mux.HandleFunc("GET /readyz", m.readyz)
	e := &Endpoint{
		http: &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       30 * time.Second,
			WriteTimeout:      scrapeTimeout + 5*time.Second,
			IdleTimeout:       2 * time.Minute,
			ErrorLog:          slog.NewLogLogger(m.log.Handler(), slog.LevelWarn),
		},
		addr:   ln.Addr().String(),
		served: make(chan error, 1),
	}
	go func() { e.served <- e.http.Serve(ln) }()
	m.log.Info("metrics listening", "addr", e.addr, "paths", "/metrics /healthz /readyz")
	return e, nil
}

// Addr is the address the endpoint listens on, e.g. "127.0.0.1:9787".
func (e *Endpoint) Addr() string { return e.addr }

// Close stops the endpoint: it waits for scrapes in progress until ctx
// ends, then cuts them.
func (e *Endpoint) Close(ctx context.Context) error {
	if err := e.http.Shutdown(ctx); err != nil {
		_ = e.http.Close()
	}
	if err := <-e.served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("metrics: serve: %w", err)
	}
	return nil
}
