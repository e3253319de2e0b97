package rules

import "strings"

// PostTitleRule states the rule PostTitle checks.
const PostTitleRule = "is required and must not be blank"

// PostTitle checks postDetail.title of a post task or publish schedule: the
// spec requires it, and a blank title is no title.
func PostTitle(s string) error {
	if strings.TrimSpace(s) == "" {
		return &Error{Rule: PostTitleRule}
	}
	return nil
}
