package planmodifiers

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestRequiresReplaceUnlessImported(t *testing.T) {
	for _, tc := range []struct {
		name  string
		state types.String
		want  bool
	}{
		{"a recorded value changes", types.StringValue("/videos/old.mp4"), true},
		{"an imported project gets its first value", types.StringNull(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// An update: a state and a plan exist.
			state := stateAt(t, "QUEUED")
			req := planmodifier.StringRequest{
				Path:        path.Root("source_file"),
				State:       state,
				Plan:        tfsdk.Plan(state),
				StateValue:  tc.state,
				PlanValue:   types.StringValue("/videos/new.mp4"),
				ConfigValue: types.StringValue("/videos/new.mp4"),
			}
			resp := &planmodifier.StringResponse{PlanValue: req.PlanValue}
			RequiresReplaceUnlessImported().PlanModifyString(context.Background(), req, resp)
			if resp.RequiresReplace != tc.want {
				t.Fatalf("RequiresReplace = %t, want %t", resp.RequiresReplace, tc.want)
			}
		})
	}
}
