package api

import (
	"net/http"
)

// jsonMisses answers the requests no route of mux takes in JSON, as every
// other error: an unknown path is a 404 and a known path with another
// method a 405 keeping the mux's Allow header. The mux still decides which
// (and still redirects to a cleaned path); only its plain-text body is
// replaced.
func (a *API) jsonMisses(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern != "" {
			mux.ServeHTTP(w, r) // a route (or a redirect to one): the mux sets the path values
			return
		}
		// No route took it: the mux answers the miss and sets r.Pattern to
		// "" (not the outer mux's "/"), which the metrics count as "other".
		miss := &missWriter{ResponseWriter: w}
		mux.ServeHTTP(miss, r)
		switch miss.status {
		case http.StatusNotFound:
			a.fail(w, r, &notFoundError{msg: "no endpoint " + r.Method + " " + r.URL.Path})
		case http.StatusMethodNotAllowed:
			a.fail(w, r, &methodError{method: r.Method, path: r.URL.Path, allow: w.Header().Get("Allow")})
		}
	})
}

// missWriter holds back a 404 or 405 and its body, passing anything else
// (a redirect) through.
type missWriter struct {
	http.ResponseWriter
	status int
}

func (m *missWriter) WriteHeader(code int) {
	if code == http.StatusNotFound || code == http.StatusMethodNotAllowed {
		m.status = code
		return
	}
	m.ResponseWriter.WriteHeader(code)
}

func (m *missWriter) Write(b []byte) (int, error) {
	if m.status != 0 {
		return len(b), nil
	}
	return m.ResponseWriter.Write(b)
}
