package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// rangeValidator checks curation.range: 0 <= start_sec < end_sec. Both ends
// being present is enforced by the schema (they are required inside range).
type rangeValidator struct{}

func curationRange() validator.Object { return rangeValidator{} }

func (rangeValidator) Description(context.Context) string {
	return "start_sec and end_sec are both required, with 0 <= start_sec < end_sec"
}

func (v rangeValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (rangeValidator) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if !known(req.ConfigValue) {
		return
	}
	start, okStart := objAttr[types.Float64](req.ConfigValue, "start_sec")
	end, okEnd := objAttr[types.Float64](req.ConfigValue, "end_sec")
	if !okStart || !okEnd || start.IsUnknown() || end.IsUnknown() {
		return
	}
	if start.IsNull() || end.IsNull() {
		resp.Diagnostics.AddAttributeError(req.Path, "Incomplete range",
			fmt.Sprintf("%s needs both start_sec and end_sec; omit range to clip the whole video", req.Path))
		return
	}
	if err := checkRange(start.ValueFloat64(), end.ValueFloat64()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid range", fmt.Sprintf("%s: %s", req.Path, err))
	}
}

// checkRange applies the rule 0 <= start < end, in seconds.
func checkRange(start, end float64) error {
	if start < 0 {
		return fmt.Errorf("start_sec (%g) must be 0 or more", start)
	}
	if start >= end {
		return fmt.Errorf("start_sec (%g) must be less than end_sec (%g)", start, end)
	}
	return nil
}
