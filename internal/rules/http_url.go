package rules

import (
	"fmt"
	"net/url"
)

// HTTPURLRule states the rule HTTPURL checks.
const HTTPURLRule = "must be an absolute http or https URL"

// HTTPURL checks an absolute http:// or https:// address with a host, such
// as a webhook url or the provider's base_url.
func HTTPURL(s string) error {
	if why := httpURLProblem(s); why != "" {
		return &Error{Rule: HTTPURLRule + ": " + why}
	}
	return nil
}

// httpURLProblem says why s is not an absolute http(s) URL, or is "".
func httpURLProblem(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Sprintf("%q does not parse: %v", s, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("%q has scheme %q, want http or https", s, u.Scheme)
	case u.Host == "":
		return fmt.Sprintf("%q has no host", s)
	}
	return ""
}
