package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// uploadIDPattern is the shape of an upload id returned by POST /api/upload-links:
// an opaque token without spaces, slashes or a scheme.
var uploadIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// videoURLValidator accepts what the service takes as videoUrl: a public
// http(s) address or an upload id from an earlier upload.
type videoURLValidator struct{}

func videoURL() validator.String { return videoURLValidator{} }

func (videoURLValidator) Description(context.Context) string {
	return "value must be an http or https URL, or an upload id"
}

func (v videoURLValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (videoURLValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	if strings.Contains(s, "://") {
		if err := checkHTTPURL(s); err != nil {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid video_url",
				fmt.Sprintf("%s must be an http or https URL or an upload id: %s", req.Path, err))
		}
		return
	}
	if !uploadIDPattern.MatchString(s) {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid video_url",
			fmt.Sprintf("%s must be an http or https URL or an upload id (letters, digits, '.', '_' and '-'), got %q",
				req.Path, s))
	}
}
