package metrics

import (
	"net/http"
	"strconv"
	"time"
)

// otherRoute is the route of a request no pattern took (a 404, a 405).
const otherRoute = "other"

// Instrument counts and times every request h answers, by route: the
// pattern of the innermost http.ServeMux that took the request (r.Pattern,
// which a mux sets on the request it is handed), never the raw path, so
// the series stay as few as the routes.
func (m *Metrics) Instrument(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		route := Route(r)
		m.requests.WithLabelValues(route, strconv.Itoa(sw.code())).Inc()
		m.latency.WithLabelValues(route).Observe(time.Since(start).Seconds())
	})
}

// Route is the route label of r once served: its pattern, or "other".
func Route(r *http.Request) string {
	if r.Pattern == "" {
		return otherRoute
	}
	return r.Pattern
}

// statusWriter remembers the status of the answer.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	// 1xx answers are interim; the final status follows.
	if s.status == 0 && code >= 200 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// code is the status answered: 200 when the handler wrote nothing.
func (s *statusWriter) code() int {
	if s.status == 0 {
		return http.StatusOK
	}
	return s.status
}

// Unwrap lets http.ResponseController reach the real writer (flushes,
// per-write deadlines).
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
