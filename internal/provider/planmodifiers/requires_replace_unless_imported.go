package planmodifiers

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
)

// RequiresReplaceUnlessImported replaces the resource when a write-only
// argument (source_file, source_hash) changes, except when the prior value is
// null: that is an imported project, whose source the service cannot report,
// so filling the argument in afterwards must not create a new project.
func RequiresReplaceUnlessImported() planmodifier.String {
	const desc = "Changing the value replaces the project, unless it was never recorded (an imported project)."
	return stringplanmodifier.RequiresReplaceIf(
		func(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
			resp.RequiresReplace = !req.StateValue.IsNull()
		}, desc, desc)
}
