package provider

import (
	"context"
	"fmt"
	"net/mail"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// emailValidator accepts a bare address such as ops@example.com (no display name).
type emailValidator struct{}

func emailAddress() validator.String { return emailValidator{} }

func (emailValidator) Description(context.Context) string {
	return "value must be an email address such as ops@example.com"
}

func (v emailValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (emailValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := checkEmail(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid email address",
			fmt.Sprintf("%s must be an email address such as ops@example.com: %s", req.Path, err))
	}
}

// checkEmail explains why s is not a bare email address, or returns nil.
func checkEmail(s string) error {
	a, err := mail.ParseAddress(s)
	if err != nil {
		return fmt.Errorf("%q: %w", s, err)
	}
	if a.Address != s {
		return fmt.Errorf("%q is not a bare address (want %q)", s, a.Address)
	}
	return nil
}
