package rules

import (
	"fmt"
	"strings"
)

// BareClipIDRule states the rule BareClipID checks. The social endpoints
// name a clip by its bare id (service-interface.md: "the part after the dot
// of the composite exportable-clip id; not the composite form"), which is
// the clip's curationId (filled-gaps.md).
const BareClipIDRule = "must be " + bareClipID

const bareClipID = "the bare clip id: the curationId of an exportable clip, the part after the dot of its id {projectId}.{curationId}"

// BareClipID checks a clipId of the social endpoints.
func BareClipID(id string) error {
	switch {
	case id == "":
		return &Error{Rule: "is required: " + bareClipID}
	case strings.Contains(id, "."):
		return &Error{Rule: fmt.Sprintf("%s, not the composite id %q", BareClipIDRule, id)}
	case strings.TrimSpace(id) != id || strings.ContainsAny(id, "/ \t\n"):
		return &Error{Rule: fmt.Sprintf("%s, not %q", BareClipIDRule, id)}
	}
	return nil
}
