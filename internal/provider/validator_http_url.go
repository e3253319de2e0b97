package provider

import (
	"context"
	"fmt"
	"net/url"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// httpURLValidator accepts absolute http:// and https:// addresses with a host.
type httpURLValidator struct{}

func httpURL() validator.String { return httpURLValidator{} }

func (httpURLValidator) Description(context.Context) string {
	return "value must be an absolute http or https URL"
}

func (v httpURLValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (httpURLValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := checkHTTPURL(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid URL",
			fmt.Sprintf("%s must be an absolute http or https URL: %s", req.Path, err))
	}
}

// checkHTTPURL explains why s is not an absolute http(s) URL, or returns nil.
func checkHTTPURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%q does not parse: %w", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q has scheme %q, want http or https", s, u.Scheme)
	}
	if u.Host == "" {
		return fmt.Errorf("%q has no host", s)
	}
	return nil
}
