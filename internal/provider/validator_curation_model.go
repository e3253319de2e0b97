package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// curationModelValidator enforces which curation arguments go with which
// model: topic_keywords only with ClipBasic (the default), custom_prompt only
// with ClipAnything.
type curationModelValidator struct{}

func curationModelRules() validator.Object { return curationModelValidator{} }

func (curationModelValidator) Description(context.Context) string {
	return "topic_keywords applies only to model ClipBasic (the default); custom_prompt only to model ClipAnything"
}

func (v curationModelValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (curationModelValidator) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if !known(req.ConfigValue) {
		return
	}
	modelVal, ok := objAttr[types.String](req.ConfigValue, "model")
	if !ok || modelVal.IsUnknown() {
		return
	}
	model := apitypes.ModelClipBasic
	if !modelVal.IsNull() {
		model = modelVal.ValueString()
	}
	if kw, ok := objAttr[types.List](req.ConfigValue, "topic_keywords"); ok && !kw.IsNull() && model != apitypes.ModelClipBasic {
		p := req.Path.AtName("topic_keywords")
		resp.Diagnostics.AddAttributeError(p, "topic_keywords needs model ClipBasic",
			fmt.Sprintf("%s applies only when curation.model is %s (the default); model is %s. Use custom_prompt with %s.",
				p, apitypes.ModelClipBasic, model, apitypes.ModelClipAnything))
	}
	if cp, ok := objAttr[types.String](req.ConfigValue, "custom_prompt"); ok && !cp.IsNull() && model != apitypes.ModelClipAnything {
		p := req.Path.AtName("custom_prompt")
		resp.Diagnostics.AddAttributeError(p, "custom_prompt needs model ClipAnything",
			fmt.Sprintf("%s applies only when curation.model is %s; model is %s (ClipBasic is the default). Use topic_keywords with %s.",
				p, apitypes.ModelClipAnything, model, apitypes.ModelClipBasic))
	}
}
