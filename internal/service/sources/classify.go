package sources

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// Kind is how a videoUrl is imported.
type Kind int

const (
	KindInvalid Kind = iota // neither an http(s) address nor an uploadId
	KindUpload              // an uploadId from POST /api/upload-links
	KindLink                // an http(s) address of a media file, streamed to disk
	KindPage                // a page of a video platform, fetched with yt-dlp
)

// Source is what a videoUrl names.
type Source struct {
	Kind     Kind
	Platform string   // Project.sourcePlatform (apitypes.Platform*)
	Site     string   // the site's name for messages ("YouTube"), "" for uploads and plain links
	ID       string   // the video's id on its platform, the uploadId, or the link's file name
	URL      *url.URL // the parsed address; nil for uploads
}

// site is a video platform whose pages are imported through yt-dlp.
type site struct {
	name     string
	platform string
}

// sites are the listed sources that are web pages rather than media files;
// subdomains match too (www., m., us02web.). The spec's sourcePlatform enum
// names YouTube, Google Drive, Zoom and StreamYard; the others report
// YTDLP_LINK.
var sites = map[string]site{
	"youtube.com":            {"YouTube", apitypes.PlatformYouTube},
	"youtu.be":               {"YouTube", apitypes.PlatformYouTube},
	"youtube-nocookie.com":   {"YouTube", apitypes.PlatformYouTube},
	"drive.google.com":       {"Google Drive", apitypes.PlatformGDrive},
	"zoom.us":                {"Zoom", apitypes.PlatformZoom},
	"zoom.com":               {"Zoom", apitypes.PlatformZoom},
	"streamyard.com":         {"StreamYard", apitypes.PlatformStreamYard},
	"vimeo.com":              {"Vimeo", apitypes.PlatformYtdlpLink},
	"twitch.tv":              {"Twitch", apitypes.PlatformYtdlpLink},
	"facebook.com":           {"Facebook", apitypes.PlatformYtdlpLink},
	"fb.watch":               {"Facebook", apitypes.PlatformYtdlpLink},
	"linkedin.com":           {"LinkedIn", apitypes.PlatformYtdlpLink},
	"x.com":                  {"X", apitypes.PlatformYtdlpLink},
	"twitter.com":            {"X", apitypes.PlatformYtdlpLink},
	"dropbox.com":            {"Dropbox", apitypes.PlatformYtdlpLink},
	"dropboxusercontent.com": {"Dropbox", apitypes.PlatformYtdlpLink},
	"rumble.com":             {"Rumble", apitypes.PlatformYtdlpLink},
	"loom.com":               {"Loom", apitypes.PlatformYtdlpLink},
	"riverside.fm":           {"Riverside", apitypes.PlatformYtdlpLink},
	"medal.tv":               {"Medal.tv", apitypes.PlatformYtdlpLink},
	"podcasts.apple.com":     {"Apple Podcasts", apitypes.PlatformYtdlpLink},
}

// lookupSite finds host or its closest listed parent domain.
func lookupSite(host string) (site, bool) {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for h := host; h != ""; {
		if s, ok := sites[h]; ok {
			return s, true
		}
		_, parent, ok := strings.Cut(h, ".")
		if !ok {
			break
		}
		h = parent
	}
	return site{}, false
}

// ErrInvalid matches (errors.Is) every error of Classify.
var ErrInvalid = errors.New("invalid videoUrl")

// InvalidError is a videoUrl that Classify refuses. Field is the request
// field it came from and Rule the rule it broke, so a caller can build its
// own message (errors.As) without editing this one; it is an ErrInvalid.
type InvalidError struct {
	Field string // "videoUrl"
	Rule  string // e.g. "must be an absolute http(s) URL with a host"
}

// Error names the field first: "videoUrl must be ...".
func (e *InvalidError) Error() string { return e.Field + " " + e.Rule }

// Is makes every InvalidError an ErrInvalid.
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

func invalidf(format string, args ...any) error {
	return &InvalidError{Field: "videoUrl", Rule: fmt.Sprintf(format, args...)}
}

// Classify tells what videoURL names. Anything with a scheme must be an
// http(s) address with a host; anything else is an uploadId, which has no
// '/', '?', '#' or spaces. The error names videoUrl and the rule broken.
func Classify(videoURL string) (Source, error) {
	raw := strings.TrimSpace(videoURL)
	if raw == "" {
		return Source{}, invalidf("is required: a public video address or an uploadId from POST /api/upload-links")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		if strings.Contains(raw, "://") {
			return Source{}, invalidf("%q is not a valid URL", raw)
		}
		if strings.ContainsAny(raw, "/?# \t\r\n") {
			return Source{}, invalidf("%q is neither an http(s) URL nor an uploadId from POST /api/upload-links", raw)
		}
		return Source{Kind: KindUpload, Platform: apitypes.PlatformUploaded, ID: raw}, nil
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return Source{}, invalidf("must be an http(s) URL or an uploadId from POST /api/upload-links, not a %s: address", u.Scheme)
	}
	if u.Hostname() == "" {
		return Source{}, invalidf("must be an absolute http(s) URL with a host")
	}
	if s, ok := lookupSite(u.Hostname()); ok {
		return Source{Kind: KindPage, Platform: s.platform, Site: s.name, ID: videoID(u, s.platform), URL: u}, nil
	}
	return Source{Kind: KindLink, Platform: apitypes.PlatformYtdlpLink, ID: videoID(u, apitypes.PlatformYtdlpLink), URL: u}, nil
}

// Platform is the Project.sourcePlatform of a videoUrl: UPLOADED for an
// uploadId, YOUTUBE, GDRIVE, ZOOM or STREAM_YARD for those sites, and
// YTDLP_LINK for any other address (and for a videoUrl that is invalid).
func Platform(videoURL string) string {
	s, err := Classify(videoURL)
	if err != nil {
		return apitypes.PlatformYtdlpLink
	}
	return s.Platform
}

// videoID is the video's id where the address carries one, else the last
// path segment (e.g. "talk.mp4"), else the host.
func videoID(u *url.URL, platform string) string {
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	segs := pathSegments(u)
	switch platform {
	case apitypes.PlatformYouTube:
		if v := u.Query().Get("v"); v != "" {
			return v
		}
		if len(segs) >= 2 {
			switch segs[0] {
			case "shorts", "live", "embed", "v":
				return segs[1]
			}
		}
	case apitypes.PlatformGDrive:
		// /file/d/<id>/view or /open?id=<id>
		for i := 0; i+1 < len(segs); i++ {
			if segs[i] == "d" {
				return segs[i+1]
			}
		}
		if v := u.Query().Get("id"); v != "" {
			return v
		}
	}
	if len(segs) == 0 {
		return host
	}
	return path.Base(segs[len(segs)-1])
}

func pathSegments(u *url.URL) []string {
	var out []string
	for _, s := range strings.Split(u.Path, "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// OwnMedia reports whether videoURL is one of the server's own media
// addresses ({publicURL}/media/...), the spec's "{base_url}" source: the
// server reads those from its data directory instead of fetching from itself.
func OwnMedia(videoURL, publicURL string) bool {
	base := strings.TrimSuffix(publicURL, "/")
	return base != "" && strings.HasPrefix(strings.TrimSpace(videoURL), base+"/media/")
}
