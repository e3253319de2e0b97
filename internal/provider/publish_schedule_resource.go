package provider

import (
	"context"
	"fmt"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/provider/validators"
	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
)

var (
	_ resource.Resource                = &PublishScheduleResource{}
	_ resource.ResourceWithConfigure   = &PublishScheduleResource{}
	_ resource.ResourceWithModifyPlan  = &PublishScheduleResource{}
	_ resource.ResourceWithImportState = &PublishScheduleResource{}
)

// PublishScheduleResource schedules a clip to be published to a connected
// account at a later time.
type PublishScheduleResource struct {
	postResource                  // Configure, and a Read that keeps the state
	now          func() time.Time // the clock publish_at must be after; time.Now but in tests
}

// NewPublishScheduleResource is the resource constructor registered by the provider.
func NewPublishScheduleResource() resource.Resource {
	return &PublishScheduleResource{now: time.Now}
}

// Configure keeps the provider's data, and its clock when it has one.
func (r *PublishScheduleResource) Configure(ctx context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.postResource.Configure(ctx, req, resp)
	if r.data != nil && r.data.Now != nil {
		r.now = r.data.Now
	}
}

// Metadata sets the resource type name.
func (r *PublishScheduleResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_publish_schedule"
}

// Schema describes the resource.
func (r *PublishScheduleResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := postAttributes("The schedule's id (`scheduleId`), the import id.")
	attrs["timeouts"] = writeTimeoutsAttribute(ctx, timeouts.Opts{Create: true, Delete: true})
	attrs["publish_at"] = schema.StringAttribute{
		MarkdownDescription: "When to publish: an RFC 3339 timestamp such as `2030-01-02T15:04:05Z` or " +
			"`2030-01-02T16:04:05+01:00`; the service gets the same instant in UTC. It must be in the future when the " +
			"schedule is made (or replaced); once it has passed, the schedule stays in state as it is, without a diff. " +
			"Writing the same instant at another offset changes the state only, not the schedule.",
		Required:      true,
		Validators:    []validator.String{validators.PublishTime()},
		PlanModifiers: []planmodifier.String{replacePost(samePublishTime)},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Publishes a clip to a connected social account at a later time (`POST /api/publish-schedules`). " +
			"Changing any argument cancels the schedule and makes another; destroying it cancels it, and one that has " +
			"already fired (or was cancelled outside Terraform) is removed from state with a warning. The service has " +
			"no endpoint that reads a schedule, so refreshes keep the state as it is.",
		Attributes: attrs,
	}
}

// ModifyPlan checks that publish_at is in the future for a schedule about to
// be made: a create, or the new half of a replacement (which Terraform plans
// as a create, without prior state). A schedule in state is never checked,
// so one whose time has passed plans as it stands; if it would be replaced,
// a warning says that its clip, already published, is published again.
func (r *PublishScheduleResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(r.warnRepublish(ctx, req)...)
		return
	}
	var at types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("publish_at"), &at)...)
	if resp.Diagnostics.HasError() || !known(at) {
		return // an unknown time is checked when the schedule is made
	}
	_, diags := r.publishAt(at)
	resp.Diagnostics.Append(diags...)
}

// warnRepublish warns when a schedule whose time has passed (it fired,
// unless it was cancelled outside Terraform) would be replaced.
func (r *PublishScheduleResource) warnRepublish(ctx context.Context, req resource.ModifyPlanRequest) diag.Diagnostics {
	changed, diags := replacedBy(ctx, req, scheduleArguments, samePublishTime)
	if len(changed) == 0 {
		return diags
	}
	var state publishScheduleModel
	if diags.Append(req.State.Get(ctx, &state)...); diags.HasError() {
		return diags
	}
	at, err := rules.PublishTime(state.PublishAt.ValueString())
	if err != nil || at.After(r.now()) {
		return diags // still pending: the replacement cancels it first
	}
	diags.Append(republishWarning(fmt.Sprintf("Schedule %s, which fired at %s,", state.ID.ValueString(),
		state.PublishAt.ValueString()), changed))
	return diags
}

// Create schedules the post.
func (r *PublishScheduleResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan publishScheduleModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Checked again: the plan may not have known the time, or it has passed since.
	at, diags := r.publishAt(plan.PublishAt)
	resp.Diagnostics.Append(diags...)
	post, diags := plan.request()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	body := apitypes.PublishScheduleRequest{PostTaskRequest: post, PublishAt: at.UTC().Format(time.RFC3339Nano)}
	ctx, cancel, ok := writeContext(ctx, plan.Timeouts.Create, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	scheduleID, err := r.data.Client.CreatePublishSchedule(ctx, body)
	if err != nil {
		resp.Diagnostics.Append(postFailure("schedule", &plan.postModel, err))
		return
	}
	plan.ID = types.StringValue(scheduleID)
	fields := plan.logFields()
	fields["publish_at"] = body.PublishAt
	tflog.Info(ctx, "Scheduled clip", fields)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Update changes nothing on the service: it is planned only to record the
// arguments of an imported schedule, or publish_at written at another
// offset (replacePost); every other change replaces the schedule.
func (r *PublishScheduleResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	recordPlan[publishScheduleModel](ctx, req, resp)
}

// Delete cancels the schedule. The service answers 404 for one that fired,
// was cancelled, or never was: it leaves the state with a warning.
func (r *PublishScheduleResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state publishScheduleModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, ok := writeContext(ctx, state.Timeouts.Delete, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	id := state.ID.ValueString()
	err := r.data.Client.DeletePublishSchedule(ctx, id)
	switch {
	case client.IsNotFound(err):
		tflog.Info(ctx, "Publish schedule no longer pending", state.logFields())
		resp.Diagnostics.AddWarning("Publish schedule already fired or cancelled",
			fmt.Sprintf("The service has no pending schedule %s to cancel (publish_at %s): it has fired, publishing the "+
				"clip, or was cancelled outside Terraform. Removing it from state; a published post stays published.",
				id, state.PublishAt.ValueString()))
	case err != nil:
		resp.Diagnostics.AddError("Unable to cancel publish schedule", fmt.Sprintf("Cancelling schedule %s failed: %s", id, err))
	default:
		tflog.Info(ctx, "Cancelled publish schedule", state.logFields())
	}
}

// ImportState takes a schedule id. It records the id alone: the service
// cannot tell a schedule's arguments, so the next apply records the
// configuration's (replacePost) without calling the service.
func (r *PublishScheduleResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if req.ID == "" {
		resp.Diagnostics.AddError("Invalid import id for clipper_publish_schedule", "the import id must be a schedule id (scheduleId), not empty")
		return
	}
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}

// publishAt checks a publish time that is about to be sent: its shape, and
// that it is after r's now.
func (r *PublishScheduleResource) publishAt(v types.String) (time.Time, diag.Diagnostics) {
	var diags diag.Diagnostics
	s := v.ValueString()
	at, err := rules.PublishTime(s)
	if err == nil {
		err = rules.PublishAfter(s, at, r.now())
	}
	if err != nil {
		diags.AddAttributeError(path.Root("publish_at"), "Invalid publish_at", "publish_at: "+err.Error())
	}
	return at, diags
}

// samePublishTime reports whether two publish times are the same instant.
func samePublishTime(a, b string) bool {
	ta, errA := rules.PublishTime(a)
	tb, errB := rules.PublishTime(b)
	return errA == nil && errB == nil && ta.Equal(tb)
}

type publishScheduleModel struct {
	postModel
	PublishAt types.String `tfsdk:"publish_at"`
}
