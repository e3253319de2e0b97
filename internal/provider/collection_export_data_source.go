package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/client"
)

var (
	_ datasource.DataSource              = &CollectionExportDataSource{}
	_ datasource.DataSourceWithConfigure = &CollectionExportDataSource{}
)

// CollectionExportDataSource exports a collection: the download addresses of its clips.
type CollectionExportDataSource struct {
	data *providerData
}

// NewCollectionExportDataSource is the data source constructor registered by the provider.
func NewCollectionExportDataSource() datasource.DataSource {
	return &CollectionExportDataSource{}
}

// Metadata sets the data source type name.
func (d *CollectionExportDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_collection_export"
}

// Schema describes the data source.
func (d *CollectionExportDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: desc, Computed: true}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Exports a collection (`POST /api/collections/{id}/export`): the download address of each of its clips.",
		Attributes: map[string]schema.Attribute{
			"timeouts": dataSourceTimeoutsAttribute(ctx),
			"id":       str("The `collection_id`."),
			"collection_id": schema.StringAttribute{
				MarkdownDescription: "Id of the collection to export, such as `clipper_collection.<name>.id`.",
				Required:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"contents": schema.ListNestedAttribute{
				MarkdownDescription: "The clips of the collection (`contentList`), in the service's order.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"content_id":     str("Composite clip id `{projectId}.{curationId}`."),
						"uri_for_export": str("Download address of the rendered clip."),
					},
				},
			},
		},
	}
}

// Configure receives the provider's client.
func (d *CollectionExportDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// Read exports the collection.
func (d *CollectionExportDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg collectionExportModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, timeout, ok := withTimeout(ctx, cfg.Timeouts.Read, defaultDataSourceReadTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	id := cfg.CollectionID.ValueString()
	exported, err := d.data.Client.ExportCollection(ctx, id)
	if client.IsNotFound(err) {
		resp.Diagnostics.AddAttributeError(path.Root("collection_id"), "Collection not found",
			fmt.Sprintf("The service has no collection %s to export: %s", id, err))
		return
	}
	if err != nil {
		resp.Diagnostics.Append(readFailure(ctx, "Unable to export collection", timeout, err))
		return
	}
	cfg.ID = types.StringValue(id)
	cfg.Contents = make([]exportedContentModel, 0, len(exported.ContentList))
	for _, c := range exported.ContentList {
		cfg.Contents = append(cfg.Contents, exportedContentModel{
			ContentID:    types.StringValue(c.ContentID),
			URIForExport: types.StringValue(c.URIForExport),
		})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}

type collectionExportModel struct {
	Timeouts     timeouts.Value         `tfsdk:"timeouts"`
	ID           types.String           `tfsdk:"id"`
	CollectionID types.String           `tfsdk:"collection_id"`
	Contents     []exportedContentModel `tfsdk:"contents"`
}

type exportedContentModel struct {
	ContentID    types.String `tfsdk:"content_id"`
	URIForExport types.String `tfsdk:"uri_for_export"`
}
