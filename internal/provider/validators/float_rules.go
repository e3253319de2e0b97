package validators

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
)

// floatRule applies a rule of one number to a known value.
type floatRule struct {
	described
	summary string
	check   func(float64) error
}

func (v floatRule) ValidateFloat64(_ context.Context, req validator.Float64Request, resp *validator.Float64Response) {
	if !known(req.ConfigValue) {
		return
	}
	if err := v.check(req.ConfigValue.ValueFloat64()); err != nil {
		addRuleError(&resp.Diagnostics, req.Path, v.summary, err)
	}
}

// Percent accepts a coordinate or extent of a placement rectangle: 0 to 100.
func Percent() validator.Float64 {
	return floatRule{described("value " + rules.PercentRule), "Invalid rectangle", rules.Percent}
}

// FontSize accepts font.numerical_size: above 0.
func FontSize() validator.Float64 {
	return floatRule{described("value " + rules.FontSizeRule), "Invalid font size", rules.FontSize}
}
