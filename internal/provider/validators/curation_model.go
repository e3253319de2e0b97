package validators

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
)

// curationModel applies rules.CurationModel to the curation object.
type curationModel struct{ described }

// CurationModel checks which curation arguments go with which model:
// topic_keywords only with ClipBasic (the default), custom_prompt only with
// ClipAnything.
func CurationModel() validator.Object {
	return curationModel{"topic_keywords applies only to model ClipBasic (the default); custom_prompt only to model ClipAnything"}
}

func (curationModel) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if !known(req.ConfigValue) {
		return
	}
	model, ok := objAttr[types.String](req.ConfigValue, "model")
	if !ok || model.IsUnknown() {
		return
	}
	// An unknown keyword list or prompt is set: only its value is unknown.
	keywords, _ := objAttr[types.List](req.ConfigValue, "topic_keywords")
	prompt, _ := objAttr[types.String](req.ConfigValue, "custom_prompt")
	err := rules.CurationModel(model.ValueString(), !keywords.IsNull(), !prompt.IsNull(), rules.AttributeNames)
	if err != nil {
		addRuleError(&resp.Diagnostics, req.Path, "Argument does not apply to the curation model", err)
	}
}
