package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/failbound"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// keyStore is what authentication reads of the store.
type keyStore interface {
	LookupKey(ctx context.Context, key string) (store.Key, error)
}

type callerKey struct{}

// caller is the key, org and user of an authenticated request.
func caller(r *http.Request) store.Key {
	k, _ := r.Context().Value(callerKey{}).(store.Key)
	return k
}

// bearerToken reads the API key from Authorization. The spec's own examples
// sometimes send the key without the word "Bearer" and filled-gaps.md is
// silent, so a bare token (one word, no scheme) is accepted as well; the
// scheme, when present, must be Bearer (any case).
func bearerToken(h string) (string, bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return "", false
	}
	scheme, token, hasScheme := strings.Cut(h, " ")
	if !hasScheme {
		if strings.EqualFold(h, "Bearer") {
			return "", false // the scheme without a token
		}
		return h, true
	}
	token = strings.TrimSpace(token)
	if !strings.EqualFold(scheme, "Bearer") || token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}

// authed requires a known API key. Failed keys are bounded per client
// address as failed gallery logins are: out of attempts, a request is
// refused (429) before its key is looked at.
func (a *API) authed(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client, err := failbound.ClientAddr(r, a.trustedProxies)
		if err != nil {
			a.log.Warn("failed API keys counted by the proxy's address", "client", client, "err", err)
		}
		if now := a.limiter.now(); a.authFails.Blocked(r.Context(), client, now) {
			a.throttled(ThrottledAuth)
			w.Header().Set("Retry-After", strconv.Itoa(int(failbound.Every.Seconds())))
			a.fail(w, r, errAuthBlocked)
			return
		}
		key, err := a.authenticate(r)
		if ae := (*authError)(nil); errors.As(err, &ae) && ae.unknown {
			a.authFails.Failed(r.Context(), client, a.limiter.now())
		}
		if err != nil {
			a.fail(w, r, err)
			return
		}
		next(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, key)))
	})
}

// authenticate finds the key of the request's bearer token. When
// x-svc-org-id is sent it must name the key's organization: a key acts for
// exactly one org here, so another org id is refused naming the header.
func (a *API) authenticate(r *http.Request) (store.Key, error) {
	token, ok := bearerToken(r.Header.Get("Authorization"))
	if !ok {
		return store.Key{}, &authError{msg: "missing or malformed Authorization header: send Authorization: Bearer <API_KEY>"}
	}
	key, err := a.stores.keys.LookupKey(r.Context(), token)
	if errors.Is(err, store.ErrNotFound) {
		return store.Key{}, &authError{msg: "invalid API key", unknown: true}
	}
	if err != nil {
		return store.Key{}, err
	}
	if org := strings.TrimSpace(r.Header.Get(apitypes.HeaderOrgID)); org != "" && org != key.OrgID {
		return store.Key{}, &authError{forbidden: true, msg: apitypes.HeaderOrgID + ": the API key does not belong to organization " + org}
	}
	return key, nil
}

// limited applies the per-key rate limit; it runs after authed.
func (a *API) limited(next http.HandlerFunc) http.HandlerFunc {
	return a.limitedBy(a.limiter, ThrottledRate, errRateLimited, next)
}

// postLimited applies the per-key limit of the endpoints that post clips or
// start jobs on them (--post-rate-limit), a budget apart from limited's, so
// posting cannot use up the core endpoints' and the other way round; it
// runs after authed.
func (a *API) postLimited(next http.HandlerFunc) http.HandlerFunc {
	return a.limitedBy(a.postLimiter, ThrottledPostRate, errPostRateLimited, next)
}

// limitedBy answers a request that l refuses with refused (429), counted as
// reason.
func (a *API) limitedBy(l *keyLimiter, reason string, refused error, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !l.admit(context.WithoutCancel(r.Context()), w, caller(r).Hash, l.now()) {
			a.throttled(reason)
			a.fail(w, r, refused)
			return
		}
		next(w, r)
	}
}
