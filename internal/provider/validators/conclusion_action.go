package validators

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
)

// conclusionAction applies rules.ConclusionAction to one conclusion action.
type conclusionAction struct{ described }

// ConclusionAction checks one item of conclusion_actions: WEBHOOK needs an
// http(s) url and no email, EMAIL an email address and no url.
func ConclusionAction() validator.Object {
	return conclusionAction{"type WEBHOOK needs an http(s) url and no email; type EMAIL needs an email address and no url"}
}

func (conclusionAction) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if !known(req.ConfigValue) {
		return
	}
	typ, okType := objAttr[types.String](req.ConfigValue, "type")
	url, okURL := objAttr[types.String](req.ConfigValue, "url")
	email, okEmail := objAttr[types.String](req.ConfigValue, "email")
	if !okType || !okURL || !okEmail || !known(typ) || url.IsUnknown() || email.IsUnknown() {
		return
	}
	err := rules.ConclusionAction(typ.ValueString(), url.ValueString(), email.ValueString())
	var broken *rules.Error
	if errors.As(err, &broken) && broken.Field == "type" {
		return // the type attribute's own OneOf validator reports it
	}
	if err != nil {
		addRuleError(&resp.Diagnostics, req.Path, "Invalid conclusion action", err)
	}
}
