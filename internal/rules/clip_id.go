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

// SplitContentID splits a clip's composite id {projectId}.{curationId} into
// the projectId and the bare clipId that the social endpoints take. The id
// has ContentID's form, and its curationId must be a bare clip id: the
// composite id has exactly one dot.
func SplitContentID(s string) (projectID, clipID string, err error) {
	if err := ContentID(s); err != nil {
		return "", "", err
	}
	projectID, clipID, _ = strings.Cut(s, ".")
	if BareClipID(clipID) != nil {
		return "", "", &Error{Rule: fmt.Sprintf("%s with one dot and no spaces, not %q", ContentIDRule, s)}
	}
	return projectID, clipID, nil
}
