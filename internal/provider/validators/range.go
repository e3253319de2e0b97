package validators

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
)

// curationRange applies rules.Range to an object with start_sec and end_sec.
type curationRange struct{ described }

// CurationRange checks curation.range: both ends, with 0 <= start_sec < end_sec.
func CurationRange() validator.Object {
	return curationRange{"start_sec and end_sec are both required, with 0 <= start_sec < end_sec"}
}

func (curationRange) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if !known(req.ConfigValue) {
		return
	}
	start, okStart := objAttr[types.Float64](req.ConfigValue, "start_sec")
	end, okEnd := objAttr[types.Float64](req.ConfigValue, "end_sec")
	if !okStart || !okEnd || start.IsUnknown() || end.IsUnknown() {
		return
	}
	if err := rules.Range(start.ValueFloat64Pointer(), end.ValueFloat64Pointer(), rules.AttributeNames); err != nil {
		addRuleError(&resp.Diagnostics, req.Path, "Invalid range", err)
	}
}
