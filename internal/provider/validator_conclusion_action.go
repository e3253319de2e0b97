package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// conclusionActionValidator checks one conclusion action: WEBHOOK needs url
// and no email, EMAIL needs email and no url. The formats of url and email are
// checked by their own attribute validators.
type conclusionActionValidator struct{}

func conclusionActionRules() validator.Object { return conclusionActionValidator{} }

func (conclusionActionValidator) Description(context.Context) string {
	return "type WEBHOOK needs url, type EMAIL needs email"
}

func (v conclusionActionValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (conclusionActionValidator) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if !known(req.ConfigValue) {
		return
	}
	typ, ok := objAttr[types.String](req.ConfigValue, "type")
	if !ok || !known(typ) {
		return
	}
	var need, forbid string
	switch typ.ValueString() {
	case apitypes.ActionWebhook:
		need, forbid = "url", "email"
	case apitypes.ActionEmail:
		need, forbid = "email", "url"
	default:
		return // the type's OneOf validator reports it
	}
	if v, _ := objAttr[types.String](req.ConfigValue, need); v.IsNull() {
		p := req.Path.AtName(need)
		resp.Diagnostics.AddAttributeError(p, "Missing "+need,
			fmt.Sprintf("%s is required when type is %s", p, typ.ValueString()))
	}
	if v, _ := objAttr[types.String](req.ConfigValue, forbid); known(v) {
		p := req.Path.AtName(forbid)
		resp.Diagnostics.AddAttributeError(p, "Unexpected "+forbid,
			fmt.Sprintf("%s does not apply when type is %s; remove it", p, typ.ValueString()))
	}
}
