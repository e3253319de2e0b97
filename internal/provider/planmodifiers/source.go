package planmodifiers

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// The source of a project is named by video_url (an address or an upload id)
// or by source_file (a local path, uploaded at create, with source_hash for
// its content). These modifiers replace the project when the source changes,
// and only then.

var (
	pathSourceFile     = path.Root("source_file")
	pathSourceHash     = path.Root("source_hash")
	pathSourcePlatform = path.Root("source_platform")
)

// SourceFileRequiresReplace replaces the project when source_file changes,
// except when the prior value is null (an imported project: the service
// cannot report a local path) and when source_hash is set before and after:
// then the content decides, not the spelling of the path (`dir/../dir/a.mp4`,
// another checkout).
func SourceFileRequiresReplace() planmodifier.String {
	const desc = "Changing the value replaces the project, unless it was never recorded (an imported project) " +
		"or source_hash is set, which then decides."
	return stringplanmodifier.RequiresReplaceIf(
		func(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
			if req.StateValue.IsNull() {
				return
			}
			var configHash, stateHash types.String
			resp.Diagnostics.Append(req.Config.GetAttribute(ctx, pathSourceHash, &configHash)...)
			resp.Diagnostics.Append(req.State.GetAttribute(ctx, pathSourceHash, &stateHash)...)
			resp.RequiresReplace = configHash.IsNull() || stateHash.IsNull()
		}, desc, desc)
}

// VideoURLRequiresReplace replaces the project when video_url changes, except
// when an uploaded project's video_url (its upload id, as import records it)
// gives way to source_file: both name the same upload.
func VideoURLRequiresReplace() planmodifier.String {
	const desc = "Changing the value replaces the project, unless an uploaded project's upload id gives way to source_file."
	return stringplanmodifier.RequiresReplaceIf(
		func(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
			resp.RequiresReplace = true
			if !req.ConfigValue.IsNull() {
				return
			}
			var sourceFile, platform types.String
			resp.Diagnostics.Append(req.Config.GetAttribute(ctx, pathSourceFile, &sourceFile)...)
			resp.Diagnostics.Append(req.State.GetAttribute(ctx, pathSourcePlatform, &platform)...)
			resp.RequiresReplace = sourceFile.IsNull() || platform.ValueString() != apitypes.PlatformUploaded
		}, desc, desc)
}
