package planmodifiers

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// stringPlanCase is one plan of an optional and computed string argument:
// a create or an update from state, with config, and what it should plan.
type stringPlanCase struct {
	name          string
	create        bool
	state, config types.String
	wantPlan      types.String
	wantReplace   bool
}

func runStringPlans(t *testing.T, m planmodifier.String, cases []stringPlanCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plan, replace := planString(t, m, tc.create, tc.state, tc.config)
			if !plan.Equal(tc.wantPlan) || replace != tc.wantReplace {
				t.Fatalf("planned %s (replace %t), want %s (replace %t)", plan, replace, tc.wantPlan, tc.wantReplace)
			}
		})
	}
}

func TestNullIsDefault(t *testing.T) {
	null, auto, en, unknown := types.StringNull(), types.StringValue("auto"), types.StringValue("en"), types.StringUnknown()
	runStringPlans(t, NullIsDefault("auto"), []stringPlanCase{
		{"create without it", true, null, null, null, false},
		{"create with it", true, null, en, en, false},
		{"imported default, left out", false, auto, null, auto, false},
		{"never set, left out", false, null, null, null, false},
		{"never set, now the default", false, null, auto, auto, false},
		{"the default, now a language", false, auto, en, en, true},
		{"a language, now left out", false, en, null, null, true},
		{"a language, unchanged", false, en, en, en, false},
		{"unknown until apply", false, en, unknown, unknown, true},
	})
}

func TestNullIsServiceChoice(t *testing.T) {
	null, named, other := types.StringNull(), types.StringValue("talk.mp4"), types.StringValue("Quarterly talk")
	runStringPlans(t, NullIsServiceChoice(), []stringPlanCase{
		{"create without it", true, null, null, null, false},
		{"imported service title, left out", false, named, null, named, false},
		{"never set, left out", false, null, null, null, false},
		{"configured as reported", false, named, named, named, false},
		{"configured differently", false, named, other, other, true},
		{"configured where there was none", false, null, other, other, true},
	})
}

// planString runs m on a create (no state) or an update of an optional and
// computed string argument, and returns the planned value and whether it
// replaces the resource.
func planString(t *testing.T, m planmodifier.String, create bool, state, config types.String) (types.String, bool) {
	t.Helper()
	prior := stateAt(t, "COMPLETE")
	if create {
		prior = stateAt(t, "")
	}
	req := planmodifier.StringRequest{
		Path:        path.Root("arg"),
		State:       prior,
		Plan:        tfsdk.Plan(stateAt(t, "COMPLETE")),
		StateValue:  state,
		PlanValue:   types.StringUnknown(), // computed: the framework marks a null config unknown
		ConfigValue: config,
	}
	resp := &planmodifier.StringResponse{PlanValue: req.PlanValue}
	m.PlanModifyString(context.Background(), req, resp)
	return resp.PlanValue, resp.RequiresReplace
}
