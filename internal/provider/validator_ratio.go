package provider

import (
	"context"
	"fmt"
	"regexp"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

var ratioPattern = regexp.MustCompile(`^(\d+):(\d+)$`)

// ratioValidator accepts a ratio written `w:h` with two positive integers, e.g. 9:16.
type ratioValidator struct{}

func ratio() validator.String { return ratioValidator{} }

func (ratioValidator) Description(context.Context) string {
	return "value must be a ratio `w:h` of two positive integers, e.g. 9:16"
}

func (v ratioValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (ratioValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := checkRatio(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid ratio",
			fmt.Sprintf("%s must be a ratio w:h of two positive integers such as 9:16: %s", req.Path, err))
	}
}

// checkRatio explains why s is not a `w:h` ratio of positive integers, or returns nil.
func checkRatio(s string) error {
	m := ratioPattern.FindStringSubmatch(s)
	if m == nil {
		return fmt.Errorf("%q is not of the form w:h", s)
	}
	for _, part := range m[1:] {
		n, err := strconv.Atoi(part)
		if err != nil {
			return fmt.Errorf("%q: %w", s, err)
		}
		if n <= 0 {
			return fmt.Errorf("%q has a zero side", s)
		}
	}
	return nil
}
