package provider

import (
	"context"
	"fmt"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/provider/validators"
	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
)

var (
	_ resource.Resource                = &CollectionResource{}
	_ resource.ResourceWithConfigure   = &CollectionResource{}
	_ resource.ResourceWithImportState = &CollectionResource{}
)

// CollectionResource manages a collection of clips.
type CollectionResource struct {
	data *providerData
}

// NewCollectionResource is the resource constructor registered by the provider.
func NewCollectionResource() resource.Resource {
	return &CollectionResource{}
}

// Metadata sets the resource type name.
func (r *CollectionResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_collection"
}

// Schema describes the resource.
func (r *CollectionResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A collection of clips on the account. Put clips in it with `clipper_collection_content`; " +
			"read its clips with `clipper_exportable_clips` (`collection_id`) or their download addresses with " +
			"`clipper_collection_export`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Collection id (`collectionId`), the import id.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("Name of the collection (`collectionName`): not blank, at most %d characters. "+
					"The service cannot rename a collection, so changing it replaces the collection, and its contents "+
					"with it.", rules.MaxCollectionName),
				Required:      true,
				Validators:    []validator.String{validators.CollectionName()},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"timeouts": writeTimeoutsAttribute(ctx, timeouts.Opts{Create: true, Delete: true}),
		},
	}
}

// Configure receives the provider's client and shared listings.
func (r *CollectionResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// Create creates the collection.
func (r *CollectionResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan collectionModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, ok := writeContext(ctx, plan.Timeouts.Create, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	name := plan.Name.ValueString()
	col, err := r.data.Client.CreateCollection(ctx, name)
	// Even a failed create may have reached the service.
	r.data.Collections.forget()
	if err != nil {
		resp.Diagnostics.Append(collectionCreateFailure(name, err))
		return
	}
	tflog.Info(ctx, "Created collection", map[string]any{"collection_id": col.CollectionID})
	plan.ID = types.StringValue(col.CollectionID)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Read finds the collection in the account's listing, shared by every
// collection of this run. A collection the service no longer lists leaves
// the state so that the next plan creates it again.
func (r *CollectionResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state collectionModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueString()
	col, found, err := r.data.Collections.collection(ctx, id)
	if err != nil {
		resp.Diagnostics.AddError("Unable to read collection", fmt.Sprintf("Listing the account's collections to find %s failed: %s", id, err))
		return
	}
	if !found {
		resp.Diagnostics.AddWarning("Collection not found",
			fmt.Sprintf("Collection %s is no longer among the account's collections (deleted outside Terraform?); "+
				"removing it from state.", id))
		resp.State.RemoveResource(ctx)
		return
	}
	state.Name = types.StringValue(col.CollectionName)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update is never planned with a change, since a new name replaces the
// collection; it records the plan.
func (r *CollectionResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	recordPlan[collectionModel](ctx, req, resp)
}

// Delete deletes the collection; the service removes its contents with it.
func (r *CollectionResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state collectionModel
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
	err := r.data.Client.DeleteCollection(ctx, id)
	r.data.Collections.forget(id)
	switch {
	case client.IsNotFound(err):
		tflog.Info(ctx, "Collection already gone from the service", map[string]any{"collection_id": id})
	case err != nil:
		resp.Diagnostics.AddError("Unable to delete collection", err.Error())
	}
}

// ImportState takes a collection id.
func (r *CollectionResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}

// recordPlan is the Update of a resource whose every argument replaces it:
// Terraform only calls it when nothing the service holds changes, and the
// plan, of model M, becomes the state.
func recordPlan[M any](ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan M
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// collectionCreateFailure explains a failed create; a 402 says what to do
// about the quota.
func collectionCreateFailure(name string, err error) diag.Diagnostic {
	if client.IsQuotaExceeded(err) {
		return diag.NewAttributeErrorDiagnostic(path.Root("name"), "Collection quota used up",
			fmt.Sprintf("The service refused to create collection %q because the account's collection quota is used up (%s).\n\n"+
				"Make room or raise the quota: delete collections you no longer need (remove unused clipper_collection "+
				"resources from the configuration, or delete them in the service's web application), or raise the limit: "+
				"on the hosted service with a plan that allows more collections, on a self-hosted clipperd with "+
				"`clipperd serve --max-collections N`.", name, err))
	}
	return diag.NewErrorDiagnostic("Unable to create collection", fmt.Sprintf("Creating collection %q failed: %s", name, err))
}

type collectionModel struct {
	ID       types.String   `tfsdk:"id"`
	Name     types.String   `tfsdk:"name"`
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}
