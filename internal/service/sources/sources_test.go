package sources

import (
	"errors"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		in       string
		kind     Kind
		platform string
		id       string
	}{
		{"up_0123abcd", KindUpload, apitypes.PlatformUploaded, "up_0123abcd"},
		{"  up_0123abcd ", KindUpload, apitypes.PlatformUploaded, "up_0123abcd"},
		{"https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=10", KindPage, apitypes.PlatformYouTube, "dQw4w9WgXcQ"},
		{"https://m.youtube.com/shorts/abc123", KindPage, apitypes.PlatformYouTube, "abc123"},
		{"https://music.youtube.com/watch?v=m1", KindPage, apitypes.PlatformYouTube, "m1"},
		{"https://youtu.be/xyz789?si=q", KindPage, apitypes.PlatformYouTube, "xyz789"},
		{"https://drive.google.com/file/d/1AbC/view?usp=sharing", KindPage, apitypes.PlatformGDrive, "1AbC"},
		{"https://drive.google.com/open?id=2XyZ", KindPage, apitypes.PlatformGDrive, "2XyZ"},
		{"https://us02web.zoom.us/rec/share/R3c0rd", KindPage, apitypes.PlatformZoom, "R3c0rd"},
		{"https://zoom.com/rec/play/Z00m", KindPage, apitypes.PlatformZoom, "Z00m"},
		{"https://streamyard.com/watch/s7r34m", KindPage, apitypes.PlatformStreamYard, "s7r34m"},
		{"https://vimeo.com/76979871", KindPage, apitypes.PlatformYtdlpLink, "76979871"},
		{"https://clips.twitch.tv/Clip1", KindPage, apitypes.PlatformYtdlpLink, "Clip1"},
		{"https://bucket.s3.amazonaws.com/talks/keynote.mp4", KindLink, apitypes.PlatformYtdlpLink, "keynote.mp4"},
		{"https://example.com/", KindLink, apitypes.PlatformYtdlpLink, "example.com"},
		{"https://notyoutube.com/watch?v=zzz", KindLink, apitypes.PlatformYtdlpLink, "watch"},
		{"http://EXAMPLE.com./a.mp4", KindLink, apitypes.PlatformYtdlpLink, "a.mp4"},
	}
	for _, c := range cases {
		s, err := Classify(c.in)
		if err != nil {
			t.Errorf("Classify(%q): %v", c.in, err)
			continue
		}
		if s.Kind != c.kind || s.Platform != c.platform || s.ID != c.id {
			t.Errorf("Classify(%q) = %v %s %q; want %v %s %q", c.in, s.Kind, s.Platform, s.ID, c.kind, c.platform, c.id)
		}
		if (s.URL == nil) != (c.kind == KindUpload) {
			t.Errorf("Classify(%q).URL = %v", c.in, s.URL)
		}
		if got := Platform(c.in); got != c.platform {
			t.Errorf("Platform(%q) = %s, want %s", c.in, got, c.platform)
		}
	}
}

func TestClassifyRefuses(t *testing.T) {
	for _, in := range []string{"", "   ", "ftp://example.com/a.mp4", "file:///etc/passwd", "not a url",
		"https:///nohost.mp4", "up_1/../x", "http://[::1", "javascript:alert(1)"} {
		s, err := Classify(in)
		if err == nil {
			t.Errorf("Classify(%q) = %+v, want an error", in, s)
			continue
		}
		if !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), "videoUrl ") {
			t.Errorf("Classify(%q) error %q: want an ErrInvalid that names videoUrl first", in, err)
		}
		if s.Kind != KindInvalid {
			t.Errorf("Classify(%q).Kind = %v, want invalid", in, s.Kind)
		}
		if got := Platform(in); got != apitypes.PlatformYtdlpLink {
			t.Errorf("Platform(%q) = %s, want YTDLP_LINK", in, got)
		}
	}
}

// TestClassifyErrorRule: the refusal carries its field and rule apart, so
// the API builds "videoUrl: RULE" without editing the error's text.
func TestClassifyErrorRule(t *testing.T) {
	cases := []struct{ in, rule string }{
		{"", "is required: a public video address or an uploadId from POST /api/upload-links"},
		{"http://[::1", `"http://[::1" is not a valid URL`},
		{"not a url", `"not a url" is neither an http(s) URL nor an uploadId from POST /api/upload-links`},
		{"ftp://example.com/a.mp4", "must be an http(s) URL or an uploadId from POST /api/upload-links, not a ftp: address"},
		{"https:///nohost.mp4", "must be an absolute http(s) URL with a host"},
	}
	for _, c := range cases {
		_, err := Classify(c.in)
		var inv *InvalidError
		if !errors.As(err, &inv) {
			t.Errorf("Classify(%q) error %v: want an *InvalidError", c.in, err)
			continue
		}
		if inv.Field != "videoUrl" || inv.Rule != c.rule {
			t.Errorf("Classify(%q): field %q rule %q; want videoUrl, %q", c.in, inv.Field, inv.Rule, c.rule)
		}
		if got, want := err.Error(), "videoUrl "+c.rule; got != want {
			t.Errorf("Classify(%q) error text %q, want %q", c.in, got, want)
		}
	}
}

func TestOwnMedia(t *testing.T) {
	cases := []struct {
		url, public string
		want        bool
	}{
		{"http://127.0.0.1:8787/media/p1/c01.mp4", "http://127.0.0.1:8787", true},
		{" http://127.0.0.1:8787/media/p1/c01.mp4", "http://127.0.0.1:8787/", true},
		{"http://127.0.0.1:8787/storage/uploads/u1", "http://127.0.0.1:8787", false},
		{"http://127.0.0.1:8787.evil.test/media/p1/c01.mp4", "http://127.0.0.1:8787", false},
		{"http://127.0.0.1:8787/media/p1/c01.mp4", "", false},
	}
	for _, c := range cases {
		if got := OwnMedia(c.url, c.public); got != c.want {
			t.Errorf("OwnMedia(%q, %q) = %v, want %v", c.url, c.public, got, c.want)
		}
	}
}
