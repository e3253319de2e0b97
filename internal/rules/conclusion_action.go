package rules

import (
	"fmt"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// ConclusionAction checks one item of conclusionActions: its type is WEBHOOK
// or EMAIL; a WEBHOOK action has an absolute http(s) url and no email, an
// EMAIL action an email address and no url (service-interface.md gives url to
// the one type and email to the other). An empty url or email is an unset one.
// The fields are named alike in the API and the provider.
func ConclusionAction(typ, url, email string) error {
	switch typ {
	case apitypes.ActionWebhook:
		return actionFields(typ, actionField{"url", url}, actionField{"email", email},
			HTTPURL, "a WEBHOOK action needs an absolute http(s) url to post to")
	case apitypes.ActionEmail:
		return actionFields(typ, actionField{"email", email}, actionField{"url", url},
			Email, "an EMAIL action needs an email address such as ops@example.com to send to")
	default:
		return &Error{Field: "type", Rule: fmt.Sprintf("must be %s or %s, not %q", apitypes.ActionWebhook, apitypes.ActionEmail, typ)}
	}
}

// MaxConclusionActions is how many conclusion actions one project may
// carry, as hosted services cap a repository's hooks: each action is one
// more message sent for every project, so an unbounded list turns one
// request into thousands of webhooks and emails.
const MaxConclusionActions = 10

// ConclusionActionCount checks the number of conclusionActions of a project.
func ConclusionActionCount(n int) error {
	if n > MaxConclusionActions {
		return &Error{Rule: fmt.Sprintf("at most %d conclusion actions per project, not %d", MaxConclusionActions, n)}
	}
	return nil
}

type actionField struct{ name, value string }

// actionFields checks that the field an action of type typ needs is set and
// passes check (missing says why it is needed), and that the field the type
// does not use is unset.
func actionFields(typ string, need, unused actionField, check func(string) error, missing string) error {
	if need.value == "" {
		return &Error{Field: need.name, Rule: missing}
	}
	if err := check(need.value); err != nil {
		e, ok := err.(*Error)
		if !ok {
			return err
		}
		return &Error{Field: need.name, Rule: e.Rule}
	}
	if unused.value != "" {
		return &Error{Field: unused.name, Rule: fmt.Sprintf("does not apply when type is %s; remove it", typ)}
	}
	return nil
}
