// Package medialink signs and checks clipperd's media addresses the way
// presigned object-store URLs are made: {publicUrl}/media/{projectId}/{file}
// carries ?expires=<Unix seconds>&sig=<HMAC-SHA256> (and &scope=public for a
// public project's longer-lived link). The HMAC covers the project, the
// clip's file stem, the expiry and the scope, keyed with a secret kept in the
// store, so an address can be neither made up, nor extended, nor moved to
// another project or clip; rotating the secret voids every address.
//
// The stem is the file name up to its first dot: one signature serves a
// clip's export (c1.mp4), preview (c1.preview.mp4) and captions (c1.srt,
// c1.vtt), which are reached by changing the name's extension. Expiries
// are rounded up to a seventh of the lifetime, so every read in the same
// window hands out the same address (plans stay empty).
package medialink

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
)

// Default lifetimes of the addresses handed out: a week for projects of
// DEFAULT visibility, the 30 days a project's media are kept for PUBLIC
// and PUBLIC_VIEW ones.
const (
	DefaultTTL       = 7 * 24 * time.Hour
	DefaultPublicTTL = 30 * 24 * time.Hour
)

// Query parameters of a signed address.
const (
	paramExpires = "expires"
	paramSig     = "sig"
	paramScope   = "scope"
	scopePublic  = "public"
)

// Errors of Check; each says what the holder of the address can do.
var (
	ErrUnsigned = errors.New("media address is not signed: use the uriForExport or uriForPreview of a clip read from the API")
	ErrForged   = errors.New("media address signature does not match (altered, or the media key was rotated): read the clip again for a new address")
	ErrExpired  = errors.New("media address has expired: read the clip again for a new address")
)

// KeySource gives the signing key (the store, which makes it at first use).
type KeySource interface {
	MediaKey(ctx context.Context) ([]byte, error)
}

// keyReuse is how long a key read from the KeySource is used before it is
// read again: a page of clips signs with one read, and a rotation by another
// process takes effect within it.
const keyReuse = 2 * time.Second

// Signer makes and checks signed media addresses. It is safe for
// concurrent use.
type Signer struct {
	keys           KeySource
	base           string // the current public URL, without a trailing slash
	ttl, publicTTL time.Duration
	now            func() time.Time

	mu     sync.Mutex
	key    []byte
	readAt time.Time // when key was read
}

// New returns a Signer of addresses under base, the server's current public
// URL ("" hands out path-only addresses); zero lifetimes take the defaults,
// a nil clock is time.Now.
func New(keys KeySource, base string, ttl, publicTTL time.Duration, now func() time.Time) *Signer {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	if publicTTL <= 0 {
		publicTTL = DefaultPublicTTL
	}
	if now == nil {
		now = time.Now
	}
	return &Signer{keys: keys, base: strings.TrimSuffix(base, "/"), ttl: ttl, publicTTL: publicTTL, now: now}
}

// Path is the address of a project's file as the store keeps it: relative
// to the public URL, which every read puts in front (Sign), so a server
// moved to another address hands out addresses of the new one.
func Path(project, file string) string { return "/media/" + project + "/" + file }

// Sign returns addr, a media address as stored (Path, or a whole address
// {publicUrl}/media/{projectId}/{file}), under the current public URL with a
// signature valid for the lifetime of its visibility. Anything that is not
// a media address (empty, another host's link) is returned as is.
func (s *Signer) Sign(ctx context.Context, addr string, public bool) (string, error) {
	ttl, scope := s.ttl, ""
	if public {
		ttl, scope = s.publicTTL, scopePublic
	}
	return s.sign(ctx, addr, ttl, scope)
}

// Presign is the blob.Presigner of the data directory's store: the signed
// address of a key media/{projectId}/{file}, valid for ttl (rounded up as
// Sign's are). Only those keys are served at /media, and never a source:
// any other key answers blob.ErrNoPresign.
func (s *Signer) Presign(ctx context.Context, key string, ttl time.Duration) (string, error) {
	rest, ok := strings.CutPrefix(key, "media/")
	project, file, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || strings.Contains(file, "/") || strings.HasPrefix(file, "source.") || !blob.ValidKey(key) {
		return "", fmt.Errorf("%w: %s is not served at /media", blob.ErrNoPresign, key)
	}
	return s.sign(ctx, Path(project, file), max(ttl, time.Second), "")
}

// sign signs addr for ttl in scope.
func (s *Signer) sign(ctx context.Context, addr string, ttl time.Duration, scope string) (string, error) {
	if strings.HasPrefix(addr, "/media/") {
		addr = s.base + addr
	}
	u, perr := url.Parse(addr)
	project, file, ok := "", "", perr == nil
	if ok {
		project, file, ok = Parse(u.Path)
	}
	if !ok {
		return addr, nil // not a media address: nothing to sign
	}
	key, err := s.currentKey(ctx)
	if err != nil {
		return "", fmt.Errorf("sign media address: %w", err)
	}
	expires := expiry(s.now(), ttl)
	q := url.Values{}
	q.Set(paramExpires, strconv.FormatInt(expires, 10))
	if scope != "" {
		q.Set(paramScope, scope)
	}
	q.Set(paramSig, mac(key, project, stem(file), expires, scope))
	u.RawQuery, u.Fragment = q.Encode(), ""
	return u.String(), nil
}

// SignClip signs the export and preview addresses of c for a project of
// the given visibility.
func (s *Signer) SignClip(ctx context.Context, c *apitypes.ExportableClip, visibility string) error {
	for _, addr := range []*string{&c.URIForExport, &c.URIForPreview} {
		signed, err := s.Sign(ctx, *addr, Public(visibility))
		if err != nil {
			return err
		}
		*addr = signed
	}
	return nil
}

// Public reports whether a project's visibility earns the longer-lived
// addresses: PUBLIC and PUBLIC_VIEW.
func Public(visibility string) bool {
	return visibility == apitypes.VisibilityPublic || visibility == apitypes.VisibilityPublicView
}

// Check verifies the query of a request for the file of project; public
// says the address was issued for a public project, whose visibility the
// caller checks again.
func (s *Signer) Check(ctx context.Context, project, file string, q url.Values) (public bool, err error) {
	sig, rawExpires, scope := q.Get(paramSig), q.Get(paramExpires), q.Get(paramScope)
	if sig == "" || rawExpires == "" {
		return false, ErrUnsigned
	}
	expires, err := strconv.ParseInt(rawExpires, 10, 64)
	if err != nil || (scope != "" && scope != scopePublic) {
		return false, ErrForged
	}
	key, err := s.currentKey(ctx)
	if err != nil {
		return false, fmt.Errorf("check media address: %w", err)
	}
	if !hmac.Equal([]byte(sig), []byte(mac(key, project, stem(file), expires, scope))) {
		return false, ErrForged
	}
	if s.now().Unix() >= expires {
		return false, ErrExpired
	}
	return scope == scopePublic, nil
}

// currentKey is the signing key, read again from the KeySource after
// keyReuse.
func (s *Signer) currentKey(ctx context.Context) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if s.key != nil && now.Sub(s.readAt) < keyReuse && !now.Before(s.readAt) {
		return s.key, nil
	}
	// The read serves every request waiting on s.mu: the one that happens to
	// make it going away must not fail the others (nor itself with a 500).
	key, err := s.keys.MediaKey(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	s.key, s.readAt = key, now
	return key, nil
}

// Parse splits a media path /media/{projectId}/{file} (the end of the
// address's path); ok is false for any other path.
func Parse(path string) (project, file string, ok bool) {
	i := strings.LastIndex(path, "/media/")
	if i < 0 {
		return "", "", false
	}
	project, file, ok = strings.Cut(path[i+len("/media/"):], "/")
	if !ok || project == "" || file == "" || strings.Contains(file, "/") || strings.ContainsAny(project+file, "\n") {
		return "", "", false
	}
	return project, file, true
}

// stem is the part of a file name the signature covers: up to the first dot.
func stem(file string) string {
	s, _, _ := strings.Cut(file, ".")
	return s
}

// mac is the signature: HMAC-SHA256 over the fields, each ended by a
// newline (none of them holds one), base64url without padding.
func mac(key []byte, project, stem string, expires int64, scope string) string {
	h := hmac.New(sha256.New, key)
	for _, f := range []string{project, stem, strconv.FormatInt(expires, 10), scope} {
		h.Write([]byte(f))
		h.Write([]byte{'\n'})
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// expiry is now+ttl in Unix seconds, rounded up to a seventh of ttl (at
// least a second): addresses issued within one such window are the same,
// and each is valid for at least ttl.
func expiry(now time.Time, ttl time.Duration) int64 {
	step := int64(max(ttl/7, time.Second) / time.Second)
	end := now.Add(ttl)
	secs := end.Unix()
	if end.Nanosecond() > 0 {
		secs++
	}
	if r := secs % step; r != 0 {
		secs += step - r
	}
	return secs
}
