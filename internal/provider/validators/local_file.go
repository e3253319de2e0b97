package validators

import (
	"context"
	"fmt"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// localFile checks at plan time that a path names a readable regular file, so
// a typo fails before anything is uploaded or created. It is the provider's
// own rule: clipperd never sees the local file, only its upload.
type localFile struct{ described }

// LocalFile accepts the path of an existing regular file.
func LocalFile() validator.String {
	return localFile{"value must be the path of an existing regular file"}
}

func (localFile) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if !known(req.ConfigValue) {
		return
	}
	name := req.ConfigValue.ValueString()
	info, err := os.Stat(name)
	switch {
	case err != nil:
		resp.Diagnostics.AddAttributeError(req.Path, "Unreadable source file",
			fmt.Sprintf("%s: must be the path of an existing file: %s", req.Path, err))
	case !info.Mode().IsRegular():
		resp.Diagnostics.AddAttributeError(req.Path, "Not a regular file",
			fmt.Sprintf("%s: must be the path of a regular file; %s is a %s", req.Path, name, info.Mode().Type()))
	}
}
