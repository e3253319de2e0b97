package provider

import (
	"context"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// colorPattern matches #RGB, #RRGGBB and #RRGGBBAA hex colors.
var colorPattern = regexp.MustCompile(`^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$`)

// colorValidator accepts the hex colors the render preferences use.
type colorValidator struct{}

func hexColor() validator.String { return colorValidator{} }

func (colorValidator) Description(context.Context) string {
	return "value must be a hex color: #RGB, #RRGGBB or #RRGGBBAA"
}

func (v colorValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (colorValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if s := req.ConfigValue.ValueString(); !colorPattern.MatchString(s) {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid color",
			fmt.Sprintf("%s must be a hex color such as #FFCC00 (#RGB, #RRGGBB or #RRGGBBAA), got %q", req.Path, s))
	}
}
