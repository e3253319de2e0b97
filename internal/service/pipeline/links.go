package pipeline

import "net/url"

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
