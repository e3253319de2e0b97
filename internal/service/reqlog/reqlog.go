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

// Handler logs each request next answers to log.
func Handler(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		log.Debug("http request", "method", r.Method, "path", loggedPath(r.URL.Path), "status", rec.status,
			"duration_ms", time.Since(start).Milliseconds())
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

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController and ServeContent reach the real writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
