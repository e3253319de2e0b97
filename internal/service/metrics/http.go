package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/reqlog"
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
		sw := &reqlog.StatusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		route := Route(r)
		m.requests.WithLabelValues(route, strconv.Itoa(sw.Code())).Inc()
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
