package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Resources whose destroy leaves what they made on the service say so when
// the plan destroys them (a null plan), so that `terraform plan -destroy`
// warns before an apply, not only the apply after it.
var (
	_ resource.ResourceWithModifyPlan = &ClipProjectResource{}
	_ resource.ResourceWithModifyPlan = &CensorJobResource{}
)

// ModifyPlan warns when the plan destroys the project: the service keeps it;
// and drops an update that would change nothing (dropEmptyUpdate).
func (r *ClipProjectResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	dropEmptyUpdate(ctx, req, resp)
	id, expires, ok := destroyedStrings(ctx, req, &resp.Diagnostics, path.Root("id"), path.Root("storage_expire_at"))
	if !ok {
		return
	}
	resp.Diagnostics.Append(projectKeptWarning(id, expires, "will be removed"))
}

// ModifyPlan warns when the plan destroys the job: the clip stays censored.
func (r *CensorJobResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	id, content, ok := destroyedStrings(ctx, req, &resp.Diagnostics, path.Root("id"), path.Root("content_id"))
	if !ok {
		return
	}
	resp.Diagnostics.AddWarning("Censored clip stays censored",
		fmt.Sprintf("The service cannot undo a censor job. Destroying censor job %s removes it from the Terraform state "+
			"only; clip %s keeps its censored export and preview.", id, content))
}

// destroyedStrings reads two string attributes of the state when req plans
// a destroy; ok is false for any other plan or when they cannot be read.
func destroyedStrings(ctx context.Context, req resource.ModifyPlanRequest, diags *diag.Diagnostics, a, b path.Path) (string, string, bool) {
	if !req.Plan.Raw.IsNull() || req.State.Raw.IsNull() {
		return "", "", false
	}
	var va, vb types.String
	diags.Append(req.State.GetAttribute(ctx, a, &va)...)
	diags.Append(req.State.GetAttribute(ctx, b, &vb)...)
	return va.ValueString(), vb.ValueString(), !diags.HasError()
}

// projectKeptWarning says that the service keeps project id until expires
// when Terraform forgets it; what says whether that is about to happen
// ("will be removed", at plan time) or has happened ("was removed").
func projectKeptWarning(id, expires, what string) diag.Diagnostic {
	if expires == "" {
		expires = "unknown"
	}
	return diag.NewWarningDiagnostic("Clip project not deleted on the service",
		fmt.Sprintf("The clipping service has no delete endpoint. Project %s %s from the Terraform state "+
			"only; it stays on the service until storage_expire_at (%s).", id, what, expires))
}
