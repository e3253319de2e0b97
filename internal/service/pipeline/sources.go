package pipeline

import (
	"net/url"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// sourceKind is how IMPORT fetches a videoUrl.
type sourceKind int

const (
	kindUpload   sourceKind = iota // an uploadId from POST /api/upload-links
	kindLink                       // an http(s) address of a media file, streamed to disk
	kindPlatform                   // a page of a video platform, fetched with yt-dlp
	kindOwnMedia                   // a clip address this clipperd handed out ({PublicURL}/media/...)
	kindInvalid
)

// platform is a video site imported through yt-dlp.
type platform struct {
	name string // for messages
	enum string // Project.sourcePlatform
}

// platformHosts are the listed sources that are web pages rather than
// media files; subdomains match too (www., m., music.).
var platformHosts = map[string]platform{
	"youtube.com":            {"YouTube", apitypes.PlatformYouTube},
	"youtu.be":               {"YouTube", apitypes.PlatformYouTube},
	"youtube-nocookie.com":   {"YouTube", apitypes.PlatformYouTube},
	"vimeo.com":              {"Vimeo", apitypes.PlatformYtdlpLink},
	"twitch.tv":              {"Twitch", apitypes.PlatformYtdlpLink},
	"facebook.com":           {"Facebook", apitypes.PlatformYtdlpLink},
	"fb.watch":               {"Facebook", apitypes.PlatformYtdlpLink},
	"linkedin.com":           {"LinkedIn", apitypes.PlatformYtdlpLink},
	"x.com":                  {"X", apitypes.PlatformYtdlpLink},
	"twitter.com":            {"X", apitypes.PlatformYtdlpLink},
	"dropbox.com":            {"Dropbox", apitypes.PlatformYtdlpLink},
	"drive.google.com":       {"Google Drive", apitypes.PlatformGDrive},
	"zoom.us":                {"Zoom", apitypes.PlatformZoom},
	"rumble.com":             {"Rumble", apitypes.PlatformYtdlpLink},
	"loom.com":               {"Loom", apitypes.PlatformYtdlpLink},
	"riverside.fm":           {"Riverside", apitypes.PlatformYtdlpLink},
	"streamyard.com":         {"StreamYard", apitypes.PlatformStreamYard},
	"medal.tv":               {"Medal.tv", apitypes.PlatformYtdlpLink},
	"podcasts.apple.com":     {"Apple Podcasts", apitypes.PlatformYtdlpLink},
	"clips.twitch.tv":        {"Twitch", apitypes.PlatformYtdlpLink},
	"music.youtube.com":      {"YouTube", apitypes.PlatformYouTube},
	"player.vimeo.com":       {"Vimeo", apitypes.PlatformYtdlpLink},
	"dropboxusercontent.com": {"Dropbox", apitypes.PlatformYtdlpLink},
}

func lookupPlatform(host string) (platform, bool) {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for h := host; h != ""; {
		if p, ok := platformHosts[h]; ok {
			return p, true
		}
		dot := strings.IndexByte(h, '.')
		if dot < 0 {
			break
		}
		h = h[dot+1:]
	}
	return platform{}, false
}

// classify tells how videoURL is imported. publicURL is clipperd's own
// base address, whose /media/ links are read from disk.
func classify(videoURL, publicURL string) (sourceKind, platform, *url.URL) {
	u, err := url.Parse(strings.TrimSpace(videoURL))
	if err != nil || u.Scheme == "" {
		if videoURL != "" && !strings.ContainsAny(videoURL, "/:?# ") {
			return kindUpload, platform{"upload", apitypes.PlatformUploaded}, nil
		}
		return kindInvalid, platform{}, nil
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return kindInvalid, platform{}, u
	}
	if base := strings.TrimSuffix(publicURL, "/"); base != "" && strings.HasPrefix(videoURL, base+"/media/") {
		return kindOwnMedia, platform{"clipperd", apitypes.PlatformYtdlpLink}, u
	}
	if p, ok := lookupPlatform(u.Hostname()); ok {
		return kindPlatform, p, u
	}
	return kindLink, platform{"link", apitypes.PlatformYtdlpLink}, u
}

// SourcePlatform is the Project.sourcePlatform for a videoUrl: UPLOADED for
// an uploadId, YOUTUBE, GDRIVE, ZOOM or STREAM_YARD for those sites, and
// YTDLP_LINK for any other address.
func SourcePlatform(videoURL string) string {
	kind, p, _ := classify(videoURL, "")
	if kind == kindInvalid {
		return apitypes.PlatformYtdlpLink
	}
	return p.enum
}

// redactURL drops the query and credentials of an address before it goes
// into a message: presigned links carry secrets there.
func redactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment = nil, "", false, ""
	return c.String()
}
