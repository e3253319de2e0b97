package rules

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxCollectionName is the longest collection name, in characters. The spec
// sets no limit; clipperd chose this one (docs/guides/service-behaviour.md),
// and the provider applies it too so that a plan never promises a name the
// service refuses.
const MaxCollectionName = 200

// CollectionNameRule states the rule CollectionName checks.
const CollectionNameRule = "is required and must not be blank"

// CollectionName checks a collection's name (collectionName): not blank and
// at most MaxCollectionName characters.
func CollectionName(s string) error {
	if strings.TrimSpace(s) == "" {
		return &Error{Rule: CollectionNameRule}
	}
	if n := utf8.RuneCountInString(s); n > MaxCollectionName {
		return &Error{Rule: fmt.Sprintf("must be at most %d characters, not %d", MaxCollectionName, n)}
	}
	return nil
}

// ContentIDRule states the rule ContentID checks.
const ContentIDRule = "must be a clip id of the form {projectId}.{curationId}"

// ContentID checks a collection content id: the composite id of an
// exportable clip, {projectId}.{curationId}, both parts non-empty. Whether the
// clip exists needs a lookup, which is not a rule of this package.
func ContentID(s string) error {
	if s == "" {
		return &Error{Rule: "is required: the clip id {projectId}.{curationId}"}
	}
	project, curation, ok := strings.Cut(s, ".")
	if !ok || project == "" || curation == "" {
		return &Error{Rule: fmt.Sprintf("%s, not %q", ContentIDRule, s)}
	}
	return nil
}
