package api

import (
	"net/netip"
	"net/url"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

func TestSourceOf(t *testing.T) {
	cases := []struct{ in, platform, id string }{
		{"https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=10", apitypes.PlatformYouTube, "dQw4w9WgXcQ"},
		{"https://m.youtube.com/shorts/abc123", apitypes.PlatformYouTube, "abc123"},
		{"https://youtu.be/xyz789?si=q", apitypes.PlatformYouTube, "xyz789"},
		{"https://drive.google.com/file/d/1AbC/view?usp=sharing", apitypes.PlatformGDrive, "1AbC"},
		{"https://drive.google.com/open?id=2XyZ", apitypes.PlatformGDrive, "2XyZ"},
		{"https://us02web.zoom.us/rec/share/R3c0rd", apitypes.PlatformZoom, "R3c0rd"},
		{"https://streamyard.com/watch/s7r34m", apitypes.PlatformStreamYard, "s7r34m"},
		{"https://vimeo.com/76979871", apitypes.PlatformYtdlpLink, "76979871"},
		{"https://bucket.s3.amazonaws.com/talks/keynote.mp4", apitypes.PlatformYtdlpLink, "keynote.mp4"},
		{"https://example.com/", apitypes.PlatformYtdlpLink, "example.com"},
		{"https://notyoutube.com/watch?v=zzz", apitypes.PlatformYtdlpLink, "watch"},
	}
	for _, c := range cases {
		u, err := url.Parse(c.in)
		if err != nil {
			t.Fatal(err)
		}
		p, id := sourceOf(u)
		if p != c.platform || id != c.id {
			t.Errorf("sourceOf(%s) = %s, %s; want %s, %s", c.in, p, id, c.platform, c.id)
		}
	}
}

func TestNonPublic(t *testing.T) {
	for _, s := range []string{"127.0.0.1", "10.2.3.4", "172.16.0.1", "172.31.255.255", "192.168.1.1", "::1",
		"fc00::1", "fd12::1", "169.254.169.254", "fe80::1", "0.0.0.0", "::ffff:127.0.0.1", "100.64.0.1"} {
		if !nonPublic(netip.MustParseAddr(s)) {
			t.Errorf("nonPublic(%s) = false, want true", s)
		}
	}
	for _, s := range []string{"8.8.8.8", "172.32.0.1", "93.184.216.34", "2606:4700::1111"} {
		if nonPublic(netip.MustParseAddr(s)) {
			t.Errorf("nonPublic(%s) = true, want false", s)
		}
	}
}

func TestBearerToken(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"Bearer ck_abc", "ck_abc", true},
		{"bearer   ck_abc ", "ck_abc", true},
		{"ck_abc", "ck_abc", true}, // bare token, as some of the spec's examples send
		{"Basic dXNlcjpwYXNz", "", false},
		{"Bearer ", "", false},
		{"Bearer a b", "", false},
		{"", "", false},
	}
	for _, c := range cases {
		got, ok := bearerToken(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("bearerToken(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
