package gallery

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// SessionCookie is the name of the gallery's session cookie.
const SessionCookie = "clipperd_session"

// cookieVersion starts every session value, so a later format can refuse
// this one by its first field.
const cookieVersion = "v1"

// sessionDomain separates the session secret from the media key it is
// derived from (see sessionSecret).
const sessionDomain = "gallery-session"

// errNoSession is every cookie that opens no session: missing, malformed,
// altered, expired, or of a key that is gone. The visitor is sent to the
// login form alike.
var errNoSession = errors.New("no valid gallery session")

// session is what a cookie carries: the org, a tag that names the key
// without revealing it, and when the session ends. The API key itself is
// never in the cookie.
type session struct {
	OrgID   string
	KeyTag  string // hex HMAC of the key under the session secret, cut to 16 bytes
	Expires time.Time
}

// sessionSecret is the key of the session cookies: HMAC(mediaKey,
// "gallery-session"). Derived rather than kept apart: it survives restarts
// without a migration, `clipperd media-key rotate` ends every session along
// with every media address (one secret for the operator to rotate), and the
// domain string makes sure no media signature is ever a valid session MAC.
func (g *Gallery) sessionSecret(ctx context.Context) ([]byte, error) {
	mediaKey, err := g.store.MediaKey(ctx)
	if err != nil {
		return nil, err
	}
	h := hmac.New(sha256.New, mediaKey)
	h.Write([]byte(sessionDomain))
	return h.Sum(nil), nil
}

// keyTag names an API key in a cookie: keyed, so a stolen cookie does not
// even let one test guesses of the key offline.
func keyTag(secret []byte, apiKey string) string {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte("api-key\n" + apiKey))
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// encode is the cookie value of s: version, org, tag and expiry, then
// their MAC, joined by dots (none of the fields holds one).
func (s session) encode(secret []byte) string {
	body := strings.Join([]string{cookieVersion, base64.RawURLEncoding.EncodeToString([]byte(s.OrgID)),
		s.KeyTag, strconv.FormatInt(s.Expires.Unix(), 10)}, ".")
	return body + "." + cookieMAC(secret, body)
}

func cookieMAC(secret []byte, body string) string {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(body))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// decodeSession checks value's MAC and expiry and returns its session.
func decodeSession(secret []byte, value string, now time.Time) (session, error) {
	i := strings.LastIndexByte(value, '.')
	if i < 0 {
		return session{}, errNoSession
	}
	body, mac := value[:i], value[i+1:]
	if !hmac.Equal([]byte(mac), []byte(cookieMAC(secret, body))) {
		return session{}, errNoSession
	}
	parts := strings.Split(body, ".")
	if len(parts) != 4 || parts[0] != cookieVersion {
		return session{}, errNoSession
	}
	org, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return session{}, errNoSession
	}
	exp, err := strconv.ParseInt(parts[3], 10, 64)
	if err != nil || now.Unix() >= exp {
		return session{}, errNoSession
	}
	return session{OrgID: string(org), KeyTag: parts[2], Expires: time.Unix(exp, 0)}, nil
}

// authenticate finds the key of the request's session cookie. The key is
// looked up again on every request, so a revoked key ends its sessions.
func (g *Gallery) authenticate(r *http.Request) (store.Key, error) {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return store.Key{}, errNoSession
	}
	secret, err := g.sessionSecret(r.Context())
	if err != nil {
		return store.Key{}, err
	}
	s, err := decodeSession(secret, c.Value, g.now())
	if err != nil {
		return store.Key{}, err
	}
	keys, err := g.store.OrgKeys(r.Context(), s.OrgID)
	if err != nil {
		return store.Key{}, err
	}
	for _, k := range keys {
		if hmac.Equal([]byte(keyTag(secret, k.Key)), []byte(s.KeyTag)) {
			return k, nil
		}
	}
	return store.Key{}, errNoSession
}

// startSession sets the cookie of a session of key.
func (g *Gallery) startSession(w http.ResponseWriter, r *http.Request, key store.Key) error {
	secret, err := g.sessionSecret(r.Context())
	if err != nil {
		return err
	}
	expires := g.now().Add(g.ttl)
	s := session{OrgID: key.OrgID, KeyTag: keyTag(secret, key.Key), Expires: expires}
	http.SetCookie(w, g.cookie(s.encode(secret), expires, int(g.ttl/time.Second)))
	return nil
}

// endSession clears the cookie.
func (g *Gallery) endSession(w http.ResponseWriter) {
	http.SetCookie(w, g.cookie("", time.Unix(0, 0), -1))
}

func (g *Gallery) cookie(value string, expires time.Time, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: SessionCookie, Value: value, Path: "/ui/", Expires: expires, MaxAge: maxAge,
		HttpOnly: true, Secure: g.secure, SameSite: http.SameSiteStrictMode,
	}
}
