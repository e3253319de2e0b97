package rules

import (
	"fmt"
	"unicode/utf8"
)

// The lengths of the free-text fields of request bodies, in characters. The
// spec sets none; clipperd chose these (generous, but bounded, so a request
// cannot store a megabyte in a title or hand one to a prompt) and documents
// them in docs/guides/service-behaviour.md. The provider does not apply
// them: the real service may accept longer values.
const (
	MaxTitle       = 500   // uploadedVideoAttr.title, postDetail.title
	MaxDescription = 5000  // postDetail.custom.description
	MaxPrompt      = 5000  // curationPref.customPrompt, a social copy job's prompt
	MaxSourceLang  = 64    // importPref.sourceLang: a language tag or "auto"
	MaxKeyword     = 100   // each of curationPref.topicKeywords, curationPref.genre
	MaxKeywords    = 50    // how many curationPref.topicKeywords
	MaxID          = 200   // ids sent in bodies: projectId, clipId, postAccountId, brandTemplateId...
	MaxURL         = 8192  // videoUrl and webhook addresses
	MaxName        = 200   // brand template names (collections: MaxCollectionName)
	MaxText        = 10000 // any other free text
)

// Length checks that s has at most max characters.
func Length(s string, max int) error {
	if n := utf8.RuneCountInString(s); n > max {
		return &Error{Rule: fmt.Sprintf("must be at most %d characters, not %d", max, n)}
	}
	return nil
}

// Count checks that a list has at most max items.
func Count(n, max int) error {
	if n > max {
		return &Error{Rule: fmt.Sprintf("must have at most %d items, not %d", max, n)}
	}
	return nil
}
