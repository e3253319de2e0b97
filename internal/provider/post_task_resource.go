package provider

import (
	"context"
	"fmt"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

var (
	_ resource.Resource                = &PostTaskResource{}
	_ resource.ResourceWithConfigure   = &PostTaskResource{}
	_ resource.ResourceWithModifyPlan  = &PostTaskResource{}
	_ resource.ResourceWithImportState = &PostTaskResource{}
)

// PostTaskResource publishes a clip to a connected account now. Its import
// refuses, saying why: see the resource's documentation.
type PostTaskResource struct {
	postResource // Configure, and a Read that keeps the state
}

// NewPostTaskResource is the resource constructor registered by the provider.
func NewPostTaskResource() resource.Resource {
	return &PostTaskResource{}
}

// ImportState refuses with the reason and what to do instead. Without it the
// framework's own refusal tells the user to contact the provider's developer.
func (r *PostTaskResource) ImportState(_ context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.AddError("clipper_post_task cannot be imported",
		fmt.Sprintf("A post task (here %q) publishes a clip once, when it is created: the service can neither read a post back "+
			"nor change or unpublish it, so an imported post task would be an id Terraform could never check or act on. "+
			"A configuration that has no clipper_post_task for a post already published need not import one: leave it out "+
			"(removing a post task from a configuration only forgets it; the post stays published). To publish at a later "+
			"time, use clipper_publish_schedule, which can be imported.", req.ID))
}

// Metadata sets the resource type name.
func (r *PostTaskResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_post_task"
}

// Schema describes the resource.
func (r *PostTaskResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := postAttributes("The post's id (`postId`).")
	attrs["timeouts"] = writeTimeoutsAttribute(ctx, timeouts.Opts{Create: true})
	resp.Schema = schema.Schema{
		MarkdownDescription: "Publishes a clip to a connected social account now (`POST /api/post-tasks`). Creating it " +
			"publishes; changing any argument publishes again, as a new post; destroying it only forgets it: nothing " +
			"is unpublished. The service has no endpoint that reads a post, so refreshes keep the state as it is.",
		Attributes: attrs,
	}
}

// ModifyPlan warns when the post would be replaced: a replacement publishes
// the clip again.
func (r *PostTaskResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	changed, diags := replacedBy(ctx, req, postArguments, nil)
	if resp.Diagnostics.Append(diags...); len(changed) == 0 {
		return
	}
	var id types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
	resp.Diagnostics.Append(republishWarning("Post "+id.ValueString(), changed))
}

// Create publishes the clip.
func (r *PostTaskResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan postModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	body, diags := plan.request()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, ok := writeContext(ctx, plan.Timeouts.Create, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	postID, err := r.data.Client.CreatePostTask(ctx, body)
	if err != nil {
		resp.Diagnostics.Append(postFailure("publish", &plan, err))
		return
	}
	plan.ID = types.StringValue(postID)
	tflog.Info(ctx, "Published clip", plan.logFields())
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Update is never planned with a change, since every argument replaces the
// post; it records the plan.
func (r *PostTaskResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	recordPlan[postModel](ctx, req, resp)
}

// Delete forgets the post: the API cannot take a post back.
func (r *PostTaskResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state postModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	tflog.Info(ctx, "Forgetting post task; it stays published", state.logFields())
	resp.Diagnostics.AddWarning("Post task forgotten, not unpublished",
		fmt.Sprintf("Post %s of clip %s to account %s is removed from the Terraform state only: the service has no "+
			"endpoint that unpublishes a post, so it stays published. Remove it on the platform if it must go.",
			state.ID.ValueString(), state.ContentID.ValueString(), state.PostAccountID.ValueString()))
}
