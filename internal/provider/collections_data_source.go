package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/provider/validators"
)

var (
	_ datasource.DataSource              = &CollectionsDataSource{}
	_ datasource.DataSourceWithConfigure = &CollectionsDataSource{}
)

// CollectionsDataSource lists the account's collections, or those holding a clip.
type CollectionsDataSource struct {
	data *providerData
}

// NewCollectionsDataSource is the data source constructor registered by the provider.
func NewCollectionsDataSource() datasource.DataSource {
	return &CollectionsDataSource{}
}

// Metadata sets the data source type name.
func (d *CollectionsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_collections"
}

// Schema describes the data source.
func (d *CollectionsDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: desc, Computed: true}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The account's collections, every page of them, or only those holding one clip. " +
			"Without `content_id` it reads the account's collection listing that the `clipper_collection` resources " +
			"of the run share.",
		Attributes: map[string]schema.Attribute{
			"timeouts": dataSourceTimeoutsAttribute(ctx),
			"id":       str("`mine`, or `mine/<content_id>` when filtered by `content_id`."),
			"content_id": schema.StringAttribute{
				MarkdownDescription: "Only list the collections holding this clip: its composite id `{projectId}.{curationId}`, " +
					"such as `clipper_clip_project.<name>.clips[0].id`.",
				Optional:   true,
				Validators: []validator.String{validators.ContentID()},
			},
			"collections": schema.ListNestedAttribute{
				MarkdownDescription: "The collections, in the service's order.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"id":         str("Collection id (`collectionId`)."),
						"name":       str("Name of the collection (`collectionName`)."),
						"created_at": str("Creation time."),
						"updated_at": str("Last change of the collection or of its contents."),
					},
				},
			},
		},
	}
}

// Configure receives the provider's client and shared listings.
func (d *CollectionsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// Read lists the collections: the shared q=mine listing, or a
// q=findByContentId listing of the clip.
func (d *CollectionsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg collectionsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, timeout, ok := withTimeout(ctx, cfg.Timeouts.Read, defaultDataSourceReadTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	id := "mine"
	var list []apitypes.Collection
	var err error
	if cfg.ContentID.IsNull() {
		list, err = d.data.Collections.collections(ctx)
	} else {
		id += "/" + cfg.ContentID.ValueString()
		list, err = d.data.Client.ListCollections(ctx, cfg.ContentID.ValueString())
	}
	if err != nil {
		resp.Diagnostics.Append(readFailure(ctx, "Unable to list collections", timeout, err))
		return
	}
	cfg.ID = types.StringValue(id)
	cfg.Collections = make([]collectionItemModel, 0, len(list))
	for _, c := range list {
		cfg.Collections = append(cfg.Collections, collectionItemModel{
			ID:        types.StringValue(c.CollectionID),
			Name:      types.StringValue(c.CollectionName),
			CreatedAt: types.StringValue(c.CreatedAt),
			UpdatedAt: types.StringValue(c.UpdatedAt),
		})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}

type collectionsModel struct {
	Timeouts    timeouts.Value        `tfsdk:"timeouts"`
	ID          types.String          `tfsdk:"id"`
	ContentID   types.String          `tfsdk:"content_id"`
	Collections []collectionItemModel `tfsdk:"collections"`
}

type collectionItemModel struct {
	ID        types.String `tfsdk:"id"`
	Name      types.String `tfsdk:"name"`
	CreatedAt types.String `tfsdk:"created_at"`
	UpdatedAt types.String `tfsdk:"updated_at"`
}
