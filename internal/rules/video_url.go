package rules

import (
	"fmt"
	"regexp"
	"strings"
)

// VideoURLRule states the rule VideoURL checks.
const VideoURLRule = "must be an http or https URL or an upload id"

// uploadID is the shape of an upload id of POST /api/upload-links: an opaque
// token without spaces, slashes or a scheme.
var uploadID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// VideoURL checks the syntax of videoUrl: a public http(s) address or the
// uploadId of an earlier upload. Whether the host is public or the upload
// exists needs a lookup, which is not a rule of this package.
func VideoURL(s string) error {
	if strings.Contains(s, "://") {
		if why := httpURLProblem(s); why != "" {
			return &Error{Rule: VideoURLRule + ": " + why}
		}
		return nil
	}
	if !uploadID.MatchString(s) {
		return &Error{Rule: fmt.Sprintf("%s (letters, digits, '.', '_' and '-'), not %q", VideoURLRule, s)}
	}
	return nil
}
