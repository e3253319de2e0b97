package provider

import (
	"fmt"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
)

var pathSourceFile = path.Root("source_file")

// checkSourceFile is Create's check of source_file, made before anything is
// uploaded. It is not a validator: validate and plan run on checkouts
// without the media, and before an apply that produces the file.
func checkSourceFile(name string) diag.Diagnostics {
	var diags diag.Diagnostics
	info, err := os.Stat(name)
	switch {
	case err != nil:
		diags.AddAttributeError(pathSourceFile, "Unreadable source file",
			fmt.Sprintf("source_file: must be the path of an existing file when the project is created: %s", err))
	case !info.Mode().IsRegular():
		diags.AddAttributeError(pathSourceFile, "Not a regular file",
			fmt.Sprintf("source_file: must be the path of a regular file; %s is a %s", name, info.Mode().Type()))
	}
	return diags
}
