package metrics

import (
	"net/http"
	"strconv"
	"time"
)

// otherRoute is the route of a request no pattern took (a 404, a 405).
const otherRoute = "other"

// ObserveRequest counts and times a request answered, by route: the
// pattern of the innermost http.ServeMux that took the request (r.Pattern,
// which a mux sets on the request it is handed), never the raw path, so
// the series stay as few as the routes. It is the public listener's
// reqlog.Observer.
func (m *Metrics) ObserveRequest(r *http.Request, status int, took time.Duration) {
	route := routeOf(r)
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(took.Seconds())
}

// routeOf is the route label of r once served: its pattern, or "other".
func routeOf(r *http.Request) string {
	if r.Pattern == "" {
		return otherRoute
	}
	return r.Pattern
}
