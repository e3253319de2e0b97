package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// TestDestroyPlanWarns: a plan that destroys a project or a censor job
// (terraform plan -destroy, or the resource removed from the configuration)
// warns that the service keeps what it made; other plans do not.
func TestDestroyPlanWarns(t *testing.T) {
	for _, tc := range []struct {
		name  string
		r     resource.ResourceWithModifyPlan
		attrs map[string]string
		want  []string
	}{
		{"clip project", &ClipProjectResource{},
			map[string]string{"id": "prj_1", "storage_expire_at": "2030-01-31T00:00:00Z"},
			[]string{"Clip project not deleted on the service", "Project prj_1 will be removed from the Terraform state only", "storage_expire_at (2030-01-31T00:00:00Z)"}},
		{"censor job", &CensorJobResource{},
			map[string]string{"id": "job_1", "content_id": "prj_1.c01"},
			[]string{"Censored clip stays censored", "censor job job_1", "clip prj_1.c01 keeps its censored"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			var sr resource.SchemaResponse
			tc.r.Schema(ctx, resource.SchemaRequest{}, &sr)
			typ := sr.Schema.Type().TerraformType(ctx)
			state := tfsdk.State{Schema: sr.Schema, Raw: tftypes.NewValue(typ, nil)}
			for name, v := range tc.attrs {
				checkDiags(t, state.SetAttribute(ctx, path.Root(name), v), "")
			}
			null := tfsdk.Plan{Schema: sr.Schema, Raw: tftypes.NewValue(typ, nil)}

			destroy := &resource.ModifyPlanResponse{Plan: null}
			tc.r.ModifyPlan(ctx, resource.ModifyPlanRequest{State: state, Plan: null}, destroy)
			checkDiags(t, destroy.Diagnostics, "")
			warnings := destroy.Diagnostics.Warnings()
			if len(warnings) != 1 {
				t.Fatalf("destroy plan: %d warnings, want 1: %v", len(warnings), warnings)
			}
			text := warnings[0].Summary() + ": " + warnings[0].Detail()
			for _, want := range tc.want {
				if !strings.Contains(text, want) {
					t.Errorf("warning %q lacks %q", text, want)
				}
			}

			update := &resource.ModifyPlanResponse{Plan: tfsdk.Plan(state)}
			tc.r.ModifyPlan(ctx, resource.ModifyPlanRequest{State: state, Plan: tfsdk.Plan(state)}, update)
			if len(update.Diagnostics) != 0 {
				t.Errorf("a plan that keeps the resource: %v", update.Diagnostics)
			}
		})
	}
}
