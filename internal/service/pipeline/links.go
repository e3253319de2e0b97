package pipeline

import (
	"net/url"
	"strings"
)

// ownMedia reports whether videoURL is a media address this clipperd handed
// out ({PublicURL}/media/...), which IMPORT reads from disk rather than
// fetching from itself.
func ownMedia(videoURL, publicURL string) bool {
	base := strings.TrimSuffix(publicURL, "/")
	return base != "" && strings.HasPrefix(strings.TrimSpace(videoURL), base+"/media/")
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
