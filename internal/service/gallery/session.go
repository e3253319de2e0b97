package gallery

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// SessionCookie is the name of the gallery's session cookie over http;
// SecureSessionCookie its name when the cookie is Secure (an https public
// URL): the __Host- prefix makes browsers refuse it unless it is Secure,
// host-only and of Path=/, so no sibling domain or plain-http page can
// plant one.
const (
	SessionCookie       = "clipperd_session"
	SecureSessionCookie = "__Host-" + SessionCookie
)

// sessionIDBytes is the size of a session id: 256 random bits.
const sessionIDBytes = 32

// errNoSession is every cookie that opens no session: missing, unknown,
// logged out, expired, or of a key that is gone. The visitor is sent to
// the login form alike.
var errNoSession = errors.New("no valid gallery session")

// sessionHash names a session in the store: the SHA-256 of the cookie's
// id, so the database holds no cookie one could replay.
func sessionHash(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

// cookieName and cookiePath are those of this gallery's session cookie.
func (g *Gallery) cookieName() string {
	if g.secure {
		return SecureSessionCookie
	}
	return SessionCookie
}

func (g *Gallery) cookiePath() string {
	if g.secure {
		return "/" // required by the __Host- prefix
	}
	return "/ui/"
}

// authenticate finds the key of the request's session. The session and its
// key are read on every request, so logging out, expiry and a revoked key
// end it at once.
func (g *Gallery) authenticate(r *http.Request) (store.Key, error) {
	id := g.sessionID(r)
	if id == "" {
		return store.Key{}, errNoSession
	}
	key, err := g.store.GallerySession(r.Context(), sessionHash(id), g.now())
	if errors.Is(err, store.ErrNotFound) {
		return store.Key{}, errNoSession
	}
	return key, err
}

// startSession records a new session of key and sets its cookie. The
// session the browser had, if any, is ended: its cookie is being replaced.
func (g *Gallery) startSession(w http.ResponseWriter, r *http.Request, key store.Key) error {
	if err := g.forgetSession(r); err != nil {
		return err
	}
	var raw [sessionIDBytes]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return err
	}
	id := base64.RawURLEncoding.EncodeToString(raw[:])
	expires := g.now().Add(g.ttl)
	if err := g.store.CreateGallerySession(r.Context(), sessionHash(id), key, expires); err != nil {
		return err
	}
	http.SetCookie(w, g.cookie(id, expires, int(g.ttl/time.Second)))
	return nil
}

// endSession deletes the request's session, if it has one, and clears the
// cookie.
func (g *Gallery) endSession(w http.ResponseWriter, r *http.Request) error {
	if err := g.forgetSession(r); err != nil {
		return err
	}
	http.SetCookie(w, g.cookie("", time.Unix(0, 0), -1))
	return nil
}

// forgetSession deletes the session of r's cookie, if it has one.
func (g *Gallery) forgetSession(r *http.Request) error {
	id := g.sessionID(r)
	if id == "" {
		return nil
	}
	return g.store.DeleteGallerySession(r.Context(), sessionHash(id))
}

// sessionID is the id r's session cookie carries; "" without one.
func (g *Gallery) sessionID(r *http.Request) string {
	if c, err := r.Cookie(g.cookieName()); err == nil {
		return c.Value
	}
	return ""
}

func (g *Gallery) cookie(value string, expires time.Time, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: g.cookieName(), Value: value, Path: g.cookiePath(), Expires: expires, MaxAge: maxAge,
		HttpOnly: true, Secure: g.secure, SameSite: http.SameSiteStrictMode,
	}
}
