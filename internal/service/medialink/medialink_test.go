package medialink

import (
	"context"
	"crypto/rand"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
)

// keys is a KeySource whose key the test can rotate.
type keys struct{ key []byte }

func (k *keys) MediaKey(context.Context) ([]byte, error) { return k.key, nil }

func (k *keys) rotate() {
	k.key = make([]byte, 32)
	_, _ = rand.Read(k.key)
}

const addr = "http://clipperd.test/media/prj_1/c1.mp4"

func newSigner(now *time.Time) (*Signer, *keys) {
	k := &keys{}
	k.rotate()
	return New(k, "", 7*24*time.Hour, 30*24*time.Hour, func() time.Time { return *now }), k
}

// check checks a signed address as the server does for a request of it.
func check(t *testing.T, s *Signer, signed string) (bool, error) {
	t.Helper()
	u, err := url.Parse(signed)
	if err != nil {
		t.Fatal(err)
	}
	project, file, ok := Parse(u.Path)
	if !ok {
		t.Fatalf("%s is not a media path", u.Path)
	}
	return s.Check(context.Background(), project, file, u.Query())
}

func sign(t *testing.T, s *Signer, addr string, public bool) string {
	t.Helper()
	signed, err := s.Sign(context.Background(), addr, public)
	if err != nil {
		t.Fatal(err)
	}
	return signed
}

// TestSignedAddressLifetime: an address works until its expiry, at least
// the TTL after it was issued and at most a seventh more; reads within one
// window get the same address, a later window a new one.
func TestSignedAddressLifetime(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)
	s, _ := newSigner(&now)
	first := sign(t, s, addr, false)
	if !strings.HasPrefix(first, addr+"?expires=") || !strings.Contains(first, "&sig=") {
		t.Fatalf("signed %q", first)
	}
	now = now.Add(time.Hour)
	if again := sign(t, s, addr, false); again != first {
		t.Errorf("an hour later %q, want the same %q", again, first)
	}
	now = now.Add(24 * time.Hour)
	if later := sign(t, s, addr, false); later == first {
		t.Errorf("a day later the same address %q", later)
	}

	issued := time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)
	for _, c := range []struct {
		at   time.Time
		want error
	}{
		{issued.Add(7 * 24 * time.Hour).Add(-time.Second), nil},
		{issued.Add(8 * 24 * time.Hour), ErrExpired},
	} {
		now = c.at
		if _, err := check(t, s, first); !errors.Is(err, c.want) {
			t.Errorf("at %s: %v, want %v", c.at, err, c.want)
		}
	}
}

// TestSignedAddressRefusals: unsigned, altered (other clip, other project,
// later expiry, public scope added) and rotated-key addresses are refused;
// the same clip's other files share the signature.
func TestSignedAddressRefusals(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)
	s, k := newSigner(&now)
	signed := sign(t, s, addr, false)
	query := signed[strings.Index(signed, "?"):]
	for _, other := range []string{".preview.mp4", ".srt", ".vtt"} {
		if public, err := check(t, s, strings.Replace(signed, ".mp4?", other+"?", 1)); err != nil || public {
			t.Errorf("%s of the same clip: public %v, %v", other, public, err)
		}
	}
	u, _ := url.Parse(signed)
	q := u.Query()
	q.Set("expires", "99999999999")
	later := "http://clipperd.test/media/prj_1/c1.mp4?" + q.Encode()
	q = u.Query()
	q.Set("scope", "public")
	widened := "http://clipperd.test/media/prj_1/c1.mp4?" + q.Encode()
	for name, c := range map[string]struct {
		addr string
		want error
	}{
		"unsigned":      {addr, ErrUnsigned},
		"no expiry":     {addr + "?sig=" + u.Query().Get("sig"), ErrUnsigned},
		"other clip":    {"http://clipperd.test/media/prj_1/c2.mp4" + query, ErrForged},
		"other project": {"http://clipperd.test/media/prj_2/c1.mp4" + query, ErrForged},
		"later expiry":  {later, ErrForged},
		"made public":   {widened, ErrForged},
		"bad expiry":    {addr + "?expires=soon&sig=x", ErrForged},
	} {
		if _, err := check(t, s, c.addr); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	k.rotate()
	now = now.Add(keyReuse) // the signer reads the key again
	if _, err := check(t, s, signed); !errors.Is(err, ErrForged) {
		t.Errorf("after rotating the key: %v, want %v", err, ErrForged)
	}
}

// TestPublicAddresses: a public project's address carries its scope and
// lives the public TTL.
func TestPublicAddresses(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)
	s, _ := newSigner(&now)
	signed := sign(t, s, addr, true)
	now = now.Add(20 * 24 * time.Hour)
	if public, err := check(t, s, signed); err != nil || !public {
		t.Errorf("20 days later: public %v, %v; want a valid public address", public, err)
	}
	now = now.Add(20 * 24 * time.Hour)
	if _, err := check(t, s, signed); !errors.Is(err, ErrExpired) {
		t.Errorf("40 days later: %v, want expired", err)
	}
}

// TestNotMediaAddresses: what is not a media address is returned as is.
func TestNotMediaAddresses(t *testing.T) {
	now := time.Now()
	s, _ := newSigner(&now)
	for _, a := range []string{"", "http://elsewhere.test/video.mp4", "http://clipperd.test/media/prj_1", "http://clipperd.test/media//c1.mp4"} {
		if got := sign(t, s, a, false); got != a {
			t.Errorf("Sign(%q) = %q, want it unchanged", a, got)
		}
	}
}

// cancelledKeys fails reads whose context is done, as a store does.
type cancelledKeys struct{ key []byte }

func (k cancelledKeys) MediaKey(ctx context.Context) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return k.key, nil
}

// TestSignOutlivesACancelledRequest: the request that happens to refresh the
// shared key has gone away; the key is still read and the address signed.
func TestSignOutlivesACancelledRequest(t *testing.T) {
	s := New(cancelledKeys{key: []byte("0123456789abcdef0123456789abcdef")}, "", 0, 0, nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.Sign(ctx, "http://h/media/p1/c01.mp4", false); err != nil {
		t.Fatalf("Sign with a cancelled request: %v", err)
	}
}

// TestAddressesUnderTheCurrentPublicURL: a stored relative address is
// handed out under the signer's public URL; a server at another address
// hands out its own, and the signature verifies at either.
func TestAddressesUnderTheCurrentPublicURL(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)
	k := &keys{}
	k.rotate()
	stored := Path("prj_1", "c1.mp4")
	if stored != "/media/prj_1/c1.mp4" {
		t.Fatalf("Path = %q", stored)
	}
	var query string
	for _, base := range []string{"http://old-host:8787", "https://clips.example.com/prefix/"} {
		s := New(k, base, 0, 0, func() time.Time { return now })
		signed := sign(t, s, stored, false)
		want := strings.TrimSuffix(base, "/") + stored + "?"
		if !strings.HasPrefix(signed, want) {
			t.Fatalf("under %s: %q, want it to start %q", base, signed, want)
		}
		if _, err := check(t, s, signed); err != nil {
			t.Errorf("under %s: %v", base, err)
		}
		q := signed[strings.Index(signed, "?"):]
		if query != "" && q != query {
			t.Errorf("the query differs by address: %q and %q", query, q)
		}
		query = q
	}
	if pathOnly := sign(t, New(k, "", 0, 0, func() time.Time { return now }), stored, false); !strings.HasPrefix(pathOnly, stored+"?") {
		t.Errorf("without a public URL: %q, want a path-only address", pathOnly)
	}
}

// TestPresign: the directory store's presigned addresses are signed
// /media addresses of renders and captions valid for the asked time; a
// source or any other key has none.
func TestPresign(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)
	k := &keys{}
	k.rotate()
	s := New(k, "http://clipperd.test", 0, 0, func() time.Time { return now })
	addr, err := s.Presign(context.Background(), "media/prj_1/c1.preview.mp4", time.Hour)
	if err != nil || !strings.HasPrefix(addr, "http://clipperd.test/media/prj_1/c1.preview.mp4?expires=") {
		t.Fatalf("Presign = %q, %v", addr, err)
	}
	if public, err := check(t, s, addr); err != nil || public {
		t.Errorf("the presigned address: public %v, %v", public, err)
	}
	now = now.Add(2 * time.Hour)
	if _, err := check(t, s, addr); !errors.Is(err, ErrExpired) {
		t.Errorf("two hours later: %v, want ErrExpired", err)
	}
	for _, key := range []string{"media/prj_1/source.mp4", "uploads/up_1.bin", "published/pa/post/clip.mp4", "media/prj_1", "media/prj_1/sub/c1.mp4", "media/../x/c1.mp4"} {
		if _, err := s.Presign(context.Background(), key, time.Hour); !errors.Is(err, blob.ErrNoPresign) {
			t.Errorf("Presign(%q) = %v, want blob.ErrNoPresign", key, err)
		}
	}
}
