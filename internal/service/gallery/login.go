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
// again, with another key, replaces the session.
func (g *Gallery) loginForm(w http.ResponseWriter, r *http.Request) {
	g.render(w, r, http.StatusOK, "login", "Log in", loginPage{})
}

// login is POST /ui/login: a known api_key starts a session (303 to /ui/);
// anything else is the form again with a 401.
func (g *Gallery) login(w http.ResponseWriter, r *http.Request) {
	if !g.logins.allow(r, g.now()) {
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
		g.log.Info("gallery login refused", "client", clientAddr(r))
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

// logout is POST /ui/logout: the cookie is cleared.
func (g *Gallery) logout(w http.ResponseWriter, r *http.Request) {
	g.endSession(w)
	http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
}
