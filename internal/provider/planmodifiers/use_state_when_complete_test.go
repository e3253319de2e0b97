package planmodifiers

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// stateAt is the state of a resource holding a stage and the attributes the
// test modifies; stage "" gives no state at all (a create).
func stateAt(t *testing.T, stage string) tfsdk.State {
	t.Helper()
	ctx := context.Background()
	s := schema.Schema{Attributes: map[string]schema.Attribute{
		"stage":       schema.StringAttribute{Computed: true},
		"clip_count":  schema.Int64Attribute{Computed: true},
		"expires_at":  schema.StringAttribute{Computed: true},
		"is_purged":   schema.BoolAttribute{Computed: true},
		"permissions": schema.ListAttribute{Computed: true, ElementType: types.StringType},
	}}
	typ := s.Type().TerraformType(ctx)
	if stage == "" {
		return tfsdk.State{Schema: s, Raw: tftypes.NewValue(typ, nil)}
	}
	vals := map[string]tftypes.Value{
		"stage":       tftypes.NewValue(tftypes.String, stage),
		"clip_count":  tftypes.NewValue(tftypes.Number, nil),
		"expires_at":  tftypes.NewValue(tftypes.String, nil),
		"is_purged":   tftypes.NewValue(tftypes.Bool, nil),
		"permissions": tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, nil),
	}
	return tfsdk.State{Schema: s, Raw: tftypes.NewValue(typ, vals)}
}

func TestUseStateWhenComplete(t *testing.T) {
	ctx := context.Background()
	m := UseStateWhenComplete{}
	for _, tc := range []struct {
		name  string
		stage apitypes.Stage
		plan  types.Int64
		want  types.Int64
	}{
		{"complete: the state value is kept", apitypes.StageComplete, types.Int64Unknown(), types.Int64Value(7)},
		{"still rendering: left to the service", apitypes.StageRender, types.Int64Unknown(), types.Int64Unknown()},
		{"stalled: left to the service", apitypes.StageStalled, types.Int64Unknown(), types.Int64Unknown()},
		{"create: nothing to keep", "", types.Int64Unknown(), types.Int64Unknown()},
		{"a known plan value stays", apitypes.StageComplete, types.Int64Value(3), types.Int64Value(3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := planmodifier.Int64Request{
				Path:        path.Root("clip_count"),
				State:       stateAt(t, string(tc.stage)),
				StateValue:  types.Int64Value(7),
				PlanValue:   tc.plan,
				ConfigValue: types.Int64Null(),
			}
			resp := &planmodifier.Int64Response{PlanValue: req.PlanValue}
			m.PlanModifyInt64(ctx, req, resp)
			if !resp.PlanValue.Equal(tc.want) {
				t.Fatalf("planned %s, want %s", resp.PlanValue, tc.want)
			}
		})
	}

	// The same rule for the other kinds of attribute.
	state := stateAt(t, string(apitypes.StageComplete))
	sResp := &planmodifier.StringResponse{PlanValue: types.StringUnknown()}
	m.PlanModifyString(ctx, planmodifier.StringRequest{State: state, StateValue: types.StringValue("2030-01-01T00:00:00Z"),
		PlanValue: types.StringUnknown(), ConfigValue: types.StringNull()}, sResp)
	bResp := &planmodifier.BoolResponse{PlanValue: types.BoolUnknown()}
	m.PlanModifyBool(ctx, planmodifier.BoolRequest{State: state, StateValue: types.BoolValue(false),
		PlanValue: types.BoolUnknown(), ConfigValue: types.BoolNull()}, bResp)
	lResp := &planmodifier.ListResponse{PlanValue: types.ListUnknown(types.StringType)}
	m.PlanModifyList(ctx, planmodifier.ListRequest{State: state, StateValue: types.ListValueMust(types.StringType, []attr.Value{types.StringValue("PROJECT_VIEW")}),
		PlanValue: types.ListUnknown(types.StringType), ConfigValue: types.ListNull(types.StringType)}, lResp)
	if sResp.PlanValue.ValueString() != "2030-01-01T00:00:00Z" || bResp.PlanValue.IsUnknown() || lResp.PlanValue.IsUnknown() {
		t.Fatalf("planned %s, %s, %s; want the state values", sResp.PlanValue, bResp.PlanValue, lResp.PlanValue)
	}

	// A list state never read (older state) is not kept as null.
	nResp := &planmodifier.ListResponse{PlanValue: types.ListUnknown(types.StringType)}
	m.PlanModifyList(ctx, planmodifier.ListRequest{State: state, StateValue: types.ListNull(types.StringType),
		PlanValue: types.ListUnknown(types.StringType), ConfigValue: types.ListNull(types.StringType)}, nResp)
	if !nResp.PlanValue.IsUnknown() {
		t.Fatalf("planned %s for a null list in state, want unknown", nResp.PlanValue)
	}
}
