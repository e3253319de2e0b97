package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// clipDurationsValidator checks curation.clip_durations: every item is a pair
// [min, max] of seconds with 0 <= min < max.
type clipDurationsValidator struct{}

func clipDurations() validator.List { return clipDurationsValidator{} }

func (clipDurationsValidator) Description(context.Context) string {
	return "each item must be a pair [min, max] of seconds with 0 <= min < max"
}

func (v clipDurationsValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (clipDurationsValidator) ValidateList(_ context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	if !known(req.ConfigValue) {
		return
	}
	for i, elem := range req.ConfigValue.Elements() {
		p := req.Path.AtListIndex(i)
		pair, ok := elem.(types.List)
		if !ok || pair.IsUnknown() {
			continue
		}
		if pair.IsNull() || len(pair.Elements()) != 2 {
			resp.Diagnostics.AddAttributeError(p, "Invalid clip duration",
				fmt.Sprintf("%s must be a pair [min, max] of seconds, got %d values", p, len(pair.Elements())))
			continue
		}
		var bounds [2]float64
		complete := true
		for j, b := range pair.Elements() {
			f, ok := b.(types.Float64)
			if !ok || f.IsUnknown() {
				complete = false
				continue
			}
			if f.IsNull() {
				resp.Diagnostics.AddAttributeError(p, "Invalid clip duration",
					fmt.Sprintf("%s must be a pair [min, max] of seconds without nulls", p))
				complete = false
				continue
			}
			bounds[j] = f.ValueFloat64()
		}
		if !complete {
			continue
		}
		if err := checkClipDuration(bounds[0], bounds[1]); err != nil {
			resp.Diagnostics.AddAttributeError(p, "Invalid clip duration", fmt.Sprintf("%s: %s", p, err))
		}
	}
}

// checkClipDuration applies the rule 0 <= min < max to one pair.
func checkClipDuration(minSec, maxSec float64) error {
	if minSec < 0 {
		return fmt.Errorf("min (%g) must be 0 or more seconds", minSec)
	}
	if minSec >= maxSec {
		return fmt.Errorf("min (%g) must be less than max (%g)", minSec, maxSec)
	}
	return nil
}
