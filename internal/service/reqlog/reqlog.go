// Package reqlog logs every request the public listener answers, the API's
// and the gallery's alike: method, path, status and duration, at debug
// level. Never headers or query: they carry API keys, session cookies and
// media signatures.
package reqlog

import (
	"log/slog"
	"net/http"
	"strconv"
	"time"
)

// maxLoggedPath bounds the path of a request in the log.
const maxLoggedPath = 120

// Observer is told of every request answered: its status and how long it
// took (the metrics count them). r.Pattern is then the route that took it.
type Observer func(r *http.Request, status int, took time.Duration)

// Handler logs each request next answers to log and tells observe (when
// not nil): one wrapper of the answer for both.
func Handler(log *slog.Logger, observe Observer, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &StatusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		took := time.Since(start)
		if observe != nil {
			observe(r, sw.Code(), took)
		}
		if log.Enabled(r.Context(), slog.LevelDebug) {
			log.Debug("http request", "method", r.Method, "path", loggedPath(r.URL.Path), "status", sw.Code(),
				"duration_ms", took.Milliseconds())
		}
	})
}

// loggedPath is a request path as the log shows it: cut to maxLoggedPath
// bytes with the length of the rest, so hostile paths (megabytes of name,
// NUL bytes, which slog quotes) cannot fill the log.
func loggedPath(p string) string {
	if len(p) <= maxLoggedPath {
		return p
	}
	return p[:maxLoggedPath] + "...(" + strconv.Itoa(len(p)-maxLoggedPath) + " more bytes)"
}

// StatusWriter remembers the status of the answer written through it;
// the metrics count requests by it too.
type StatusWriter struct {
	http.ResponseWriter
	status int
}

func (s *StatusWriter) WriteHeader(code int) {
	// 1xx answers are interim; the final status follows.
	if s.status == 0 && code >= 200 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *StatusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Code is the status answered: 200 when the handler wrote nothing.
func (s *StatusWriter) Code() int {
	if s.status == 0 {
		return http.StatusOK
	}
	return s.status
}

// Unwrap lets http.ResponseController and ServeContent reach the real
// writer (flushes, per-write deadlines).
func (s *StatusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
