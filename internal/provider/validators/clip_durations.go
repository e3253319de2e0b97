package validators

import (
	"context"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
)

// clipDurations applies rules.ClipDuration to each item of a list of number lists.
type clipDurations struct{ described }

// ClipDurations checks curation.clip_durations: every item a pair [min, max]
// of seconds with 0 <= min < max.
func ClipDurations() validator.List {
	return clipDurations{described("each item " + rules.ClipDurationRule)}
}

func (clipDurations) ValidateList(_ context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	if !known(req.ConfigValue) {
		return
	}
	for i, elem := range req.ConfigValue.Elements() {
		if err := checkClipDuration(elem); err != nil {
			addRuleError(&resp.Diagnostics, req.Path.AtListIndex(i), "Invalid clip duration", err)
		}
	}
}

// checkClipDuration applies the rule to one item once its numbers are known.
func checkClipDuration(elem attr.Value) error {
	pair, ok := elem.(types.List)
	if !ok || pair.IsUnknown() {
		return nil
	}
	if pair.IsNull() {
		return rules.ClipDurationShape("null")
	}
	nums := make([]float64, 0, len(pair.Elements()))
	shown := make([]string, 0, len(pair.Elements()))
	hasNull := false
	for _, b := range pair.Elements() {
		f, ok := b.(types.Float64)
		if !ok || f.IsUnknown() {
			return nil
		}
		if f.IsNull() {
			hasNull = true
			shown = append(shown, "null")
			continue
		}
		nums = append(nums, f.ValueFloat64())
		shown = append(shown, strconv.FormatFloat(f.ValueFloat64(), 'g', -1, 64))
	}
	if hasNull {
		return rules.ClipDurationShape("[" + strings.Join(shown, ",") + "]")
	}
	return rules.ClipDuration(nums)
}
