package gallery

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// maxLoginForm bounds the body of a login POST; a key is 51 bytes.
const maxLoginForm = 4 << 10

// loginPage is the data of the login form: an error to show, never the key.
type loginPage struct {
	Error string
}

// loginForm is GET /ui/login. It is shown with a session too: logging in
// again, with another key, replaces the browser's session (the old one is
// deleted; sessions of other browsers are not touched).
func (g *Gallery) loginForm(w http.ResponseWriter, r *http.Request) {
	g.render(w, r, http.StatusOK, "login", "Log in", loginPage{})
}

// login is POST /ui/login: a known api_key starts a session (303 to /ui/);
// anything else is the form again with a 401.
func (g *Gallery) login(w http.ResponseWriter, r *http.Request) {
	client, err := clientAddr(r, g.trustedProxies)
	if err != nil {
		g.log.Warn("gallery login counted by the proxy's address", "client", client, "err", err)
	}
	if g.logins.Blocked(r.Context(), client, g.now()) {
		g.throttled(ThrottledLogin)
		w.Header().Set("Retry-After", strconv.Itoa(int(loginEvery.Seconds())))
		g.render(w, r, http.StatusTooManyRequests, "login", "Log in",
			loginPage{Error: "Too many login attempts from your address; wait a minute and try again."})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxLoginForm)
	if err := r.ParseForm(); err != nil {
		g.render(w, r, http.StatusBadRequest, "login", "Log in", loginPage{Error: "The form could not be read; send it again."})
		return
	}
	apiKey := strings.TrimSpace(r.PostFormValue("api_key"))
	key, err := g.store.LookupKey(r.Context(), apiKey)
	if apiKey == "" || errors.Is(err, store.ErrNotFound) {
		g.logins.Failed(r.Context(), client, g.now())
		g.log.Info("gallery login refused", "client", client)
		g.render(w, r, http.StatusUnauthorized, "login", "Log in", loginPage{Error: "That API key is not valid."})
		return
	}
	if err == nil {
		err = g.startSession(w, r, key)
	}
	if err != nil {
		g.fail(w, r, err)
		return
	}
	g.log.Info("gallery login", "org", key.OrgID, "user", key.UserID)
	http.Redirect(w, r, "/ui/", http.StatusSeeOther)
}

// logout is POST /ui/logout: the session is deleted, so every copy of its
// cookie is dead, and the cookie cleared.
func (g *Gallery) logout(w http.ResponseWriter, r *http.Request) {
	if err := g.endSession(w, r); err != nil {
		g.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
}

// logoutPage is GET /ui/logout: logging out changes state, so only a POST
// does it (a link or a prefetch must not); a GET is told so.
func (g *Gallery) logoutPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Allow", http.MethodPost)
	g.render(w, r, http.StatusMethodNotAllowed, "notfound", "Log out",
		"Log out with the Log out button of any gallery page.")
}
