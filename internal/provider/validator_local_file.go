package provider

import (
	"context"
	"fmt"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// localFileValidator checks at plan time that source_file names a readable
// regular file, so a typo fails before anything is uploaded or created.
type localFileValidator struct{}

func localFile() validator.String { return localFileValidator{} }

func (localFileValidator) Description(context.Context) string {
	return "value must be the path of an existing regular file"
}

func (v localFileValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (localFileValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	name := req.ConfigValue.ValueString()
	info, err := os.Stat(name)
	switch {
	case err != nil:
		resp.Diagnostics.AddAttributeError(req.Path, "Unreadable source file",
			fmt.Sprintf("%s must be the path of an existing file: %s", req.Path, err))
	case !info.Mode().IsRegular():
		resp.Diagnostics.AddAttributeError(req.Path, "Not a regular file",
			fmt.Sprintf("%s must be the path of a regular file; %s is a %s", req.Path, name, info.Mode().Type()))
	}
}
