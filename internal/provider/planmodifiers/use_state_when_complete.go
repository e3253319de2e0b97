package planmodifiers

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// UseStateWhenComplete keeps the state value of a computed attribute in the
// plan once the resource's root attribute stage is COMPLETE: the pipeline no
// longer moves it, so an in-place update (visibility) must not show it as
// "known after apply". Before COMPLETE the value may still change and is left
// unknown. It serves string, number, bool and list attributes alike.
type UseStateWhenComplete struct{}

var (
	_ planmodifier.String = UseStateWhenComplete{}
	_ planmodifier.Int64  = UseStateWhenComplete{}
	_ planmodifier.Bool   = UseStateWhenComplete{}
	_ planmodifier.List   = UseStateWhenComplete{}
)

// Description says what the modifier does.
func (UseStateWhenComplete) Description(context.Context) string {
	return "Keeps the value in state once the project's stage is COMPLETE."
}

// MarkdownDescription is Description.
func (m UseStateWhenComplete) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

// keep reports whether the plan should take the state value: there is a
// state (an update, not a create), the plan does not know the value yet, and
// the stage recorded in state is COMPLETE.
func (UseStateWhenComplete) keep(ctx context.Context, state tfsdk.State, planValue, configValue attr.Value) bool {
	if state.Raw.IsNull() || !planValue.IsUnknown() || configValue.IsUnknown() {
		return false
	}
	var stage types.String
	if diags := state.GetAttribute(ctx, path.Root("stage"), &stage); diags.HasError() {
		return false
	}
	return apitypes.Stage(stage.ValueString()) == apitypes.StageComplete
}

// PlanModifyString keeps the state value of a string attribute once COMPLETE.
func (m UseStateWhenComplete) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if m.keep(ctx, req.State, req.PlanValue, req.ConfigValue) {
		resp.PlanValue = req.StateValue
	}
}

// PlanModifyInt64 keeps the state value of a number attribute once COMPLETE.
func (m UseStateWhenComplete) PlanModifyInt64(ctx context.Context, req planmodifier.Int64Request, resp *planmodifier.Int64Response) {
	if m.keep(ctx, req.State, req.PlanValue, req.ConfigValue) {
		resp.PlanValue = req.StateValue
	}
}

// PlanModifyBool keeps the state value of a bool attribute once COMPLETE.
func (m UseStateWhenComplete) PlanModifyBool(ctx context.Context, req planmodifier.BoolRequest, resp *planmodifier.BoolResponse) {
	if m.keep(ctx, req.State, req.PlanValue, req.ConfigValue) {
		resp.PlanValue = req.StateValue
	}
}

// PlanModifyList keeps the state value of a list attribute once COMPLETE. A
// null list was never read (a state written before the attribute existed,
// refreshed with -refresh=false): it is left to the service.
func (m UseStateWhenComplete) PlanModifyList(ctx context.Context, req planmodifier.ListRequest, resp *planmodifier.ListResponse) {
	if !req.StateValue.IsNull() && m.keep(ctx, req.State, req.PlanValue, req.ConfigValue) {
		resp.PlanValue = req.StateValue
	}
}
