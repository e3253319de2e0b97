package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// useStateWhenComplete keeps the state value of a computed attribute in the
// plan once the project is COMPLETE: the pipeline no longer moves it, so an
// in-place update (visibility) must not show it as "known after apply". Before
// COMPLETE the value may still change and is left unknown.
type useStateWhenComplete struct{}

var (
	_ planmodifier.String = useStateWhenComplete{}
	_ planmodifier.Int64  = useStateWhenComplete{}
	_ planmodifier.Bool   = useStateWhenComplete{}
	_ planmodifier.List   = useStateWhenComplete{}
)

func (useStateWhenComplete) Description(context.Context) string {
	return "Keeps the value in state once the project's stage is COMPLETE."
}

func (m useStateWhenComplete) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

// keep reports whether the plan should take the state value: there is a
// state (an update, not a create), the plan does not know the value yet, and
// the stage recorded in state is COMPLETE.
func (useStateWhenComplete) keep(ctx context.Context, state tfsdk.State, planValue, configValue attr.Value) bool {
	if state.Raw.IsNull() || !planValue.IsUnknown() || configValue.IsUnknown() {
		return false
	}
	var stage types.String
	if diags := state.GetAttribute(ctx, path.Root("stage"), &stage); diags.HasError() {
		return false
	}
	return apitypes.Stage(stage.ValueString()) == apitypes.StageComplete
}

func (m useStateWhenComplete) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if m.keep(ctx, req.State, req.PlanValue, req.ConfigValue) {
		resp.PlanValue = req.StateValue
	}
}

func (m useStateWhenComplete) PlanModifyInt64(ctx context.Context, req planmodifier.Int64Request, resp *planmodifier.Int64Response) {
	if m.keep(ctx, req.State, req.PlanValue, req.ConfigValue) {
		resp.PlanValue = req.StateValue
	}
}

func (m useStateWhenComplete) PlanModifyBool(ctx context.Context, req planmodifier.BoolRequest, resp *planmodifier.BoolResponse) {
	if m.keep(ctx, req.State, req.PlanValue, req.ConfigValue) {
		resp.PlanValue = req.StateValue
	}
}

func (m useStateWhenComplete) PlanModifyList(ctx context.Context, req planmodifier.ListRequest, resp *planmodifier.ListResponse) {
	if m.keep(ctx, req.State, req.PlanValue, req.ConfigValue) {
		resp.PlanValue = req.StateValue
	}
}
