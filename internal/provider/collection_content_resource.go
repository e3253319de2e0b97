package provider

import (
	"context"
	"fmt"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
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
	_ resource.Resource                = &CollectionContentResource{}
	_ resource.ResourceWithConfigure   = &CollectionContentResource{}
	_ resource.ResourceWithImportState = &CollectionContentResource{}
)

// CollectionContentResource puts one clip in a collection.
type CollectionContentResource struct {
	data *providerData
}

// NewCollectionContentResource is the resource constructor registered by the provider.
func NewCollectionContentResource() resource.Resource {
	return &CollectionContentResource{}
}

// Metadata sets the resource type name.
func (r *CollectionContentResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_collection_content"
}

// Schema describes the resource.
func (r *CollectionContentResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "One clip in a collection. Refreshes read the collection's clip listing " +
			"(`GET /api/exportable-clips?q=findByCollectionId`), shared by every content of that collection.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "`{collection_id}/{content_id}`, the import id.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"collection_id": schema.StringAttribute{
				MarkdownDescription: "Id of the collection, such as `clipper_collection.<name>.id`. Changing it moves the clip: " +
					"it replaces the resource.",
				Required:      true,
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
				PlanModifiers: replace,
			},
			"content_id": schema.StringAttribute{
				MarkdownDescription: "The clip: its composite id `{projectId}.{curationId}`, such as " +
					"`clipper_clip_project.<name>.clips[0].id` (or the `id` of an item of `clipper_exportable_clips` for a " +
					"project not managed here). Changing it replaces the resource.",
				Required:      true,
				Validators:    []validator.String{validators.ContentID()},
				PlanModifiers: replace,
			},
			"timeouts": writeTimeoutsAttribute(ctx, timeouts.Opts{Create: true, Delete: true}),
		},
	}
}

// Configure receives the provider's client and shared listings.
func (r *CollectionContentResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// Create adds the clip to the collection.
func (r *CollectionContentResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan collectionContentModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, ok := writeContext(ctx, plan.Timeouts.Create, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	collectionID, contentID := plan.CollectionID.ValueString(), plan.ContentID.ValueString()
	_, err := r.data.Client.AddCollectionContent(ctx, collectionID, contentID)
	// Even a failed add may have reached the service.
	r.data.Collections.forget(collectionID)
	if err != nil {
		resp.Diagnostics.AddError("Unable to add clip to collection",
			fmt.Sprintf("Adding clip %s to collection %s failed: %s", contentID, collectionID, err))
		return
	}
	tflog.Info(ctx, "Added clip to collection", map[string]any{"collection_id": collectionID, "content_id": contentID})
	plan.ID = types.StringValue(collectionContentID(collectionID, contentID))
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Read looks for the clip in the collection's clip listing, shared by every
// content of that collection in this run. A clip no longer listed, or a
// collection gone, leaves the state so that the next plan adds it again.
func (r *CollectionContentResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state collectionContentModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	collectionID, contentID := state.CollectionID.ValueString(), state.ContentID.ValueString()
	contents, err := r.data.Collections.contentsOf(ctx, collectionID)
	if err != nil {
		resp.Diagnostics.AddError("Unable to read collection content",
			fmt.Sprintf("Listing the clips of collection %s to find %s failed: %s", collectionID, contentID, err))
		return
	}
	switch {
	case !contents.exists:
		resp.Diagnostics.AddWarning("Collection not found",
			fmt.Sprintf("Collection %s no longer exists on the service (deleted outside Terraform?); removing its clip %s "+
				"from state.", collectionID, contentID))
		resp.State.RemoveResource(ctx)
	case !contents.ids[contentID]:
		resp.Diagnostics.AddWarning("Clip not in collection",
			fmt.Sprintf("Clip %s is no longer in collection %s (removed outside Terraform, or the clip is gone); "+
				"removing it from state.", contentID, collectionID))
		resp.State.RemoveResource(ctx)
	default:
		state.ID = types.StringValue(collectionContentID(collectionID, contentID))
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	}
}

// Update is never planned with a change, since both arguments replace the
// resource; it records the plan.
func (r *CollectionContentResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	recordPlan[collectionContentModel](ctx, req, resp)
}

// Delete takes the clip out of the collection.
func (r *CollectionContentResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state collectionContentModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, ok := writeContext(ctx, state.Timeouts.Delete, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	collectionID, contentID := state.CollectionID.ValueString(), state.ContentID.ValueString()
	err := r.data.Client.DeleteCollectionContent(ctx, collectionID, contentID)
	r.data.Collections.forget(collectionID)
	switch {
	case client.IsNotFound(err):
		// The collection is gone, or the clip is no longer in it.
		tflog.Info(ctx, "Clip already out of the collection", map[string]any{"collection_id": collectionID, "content_id": contentID})
	case err != nil:
		resp.Diagnostics.AddError("Unable to remove clip from collection",
			fmt.Sprintf("Removing clip %s from collection %s failed: %s", contentID, collectionID, err))
	}
}

// ImportState takes `{collection_id}/{content_id}`.
func (r *CollectionContentResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	collectionID, contentID, err := parseCollectionContentID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import id for clipper_collection_content", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("collection_id"), collectionID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("content_id"), contentID)...)
}

// collectionContentID is the id of a content: `{collection_id}/{content_id}`.
func collectionContentID(collectionID, contentID string) string {
	return collectionID + "/" + contentID
}

// parseCollectionContentID splits an import id `{collection_id}/{content_id}`
// at its first slash and checks the content id's form.
func parseCollectionContentID(id string) (collectionID, contentID string, err error) {
	collectionID, contentID, ok := strings.Cut(id, "/")
	if !ok || collectionID == "" {
		return "", "", fmt.Errorf("the import id must be {collection_id}/{content_id}, such as col_123/3f2a9c0d.c01, not %q", id)
	}
	if err := rules.ContentID(contentID); err != nil {
		return "", "", fmt.Errorf("the import id must be {collection_id}/{content_id}: in %q, content_id %w", id, err)
	}
	return collectionID, contentID, nil
}

type collectionContentModel struct {
	ID           types.String   `tfsdk:"id"`
	CollectionID types.String   `tfsdk:"collection_id"`
	ContentID    types.String   `tfsdk:"content_id"`
	Timeouts     timeouts.Value `tfsdk:"timeouts"`
}
