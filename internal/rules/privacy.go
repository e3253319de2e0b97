package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// PrivacyRule states the rule Privacy checks.
var PrivacyRule = "must be one of " + strings.Join(apitypes.Privacies, ", ")

// Privacy checks postDetail.custom.privacy of a post task or schedule; the
// empty value is an unset one (the platform's default).
func Privacy(s string) error {
	if s != "" && !slices.Contains(apitypes.Privacies, s) {
		return &Error{Rule: fmt.Sprintf("%s, not %q", PrivacyRule, s)}
	}
	return nil
}
