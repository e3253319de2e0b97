package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/client"
)

var (
	_ datasource.DataSource                     = &ExportableClipsDataSource{}
	_ datasource.DataSourceWithConfigure        = &ExportableClipsDataSource{}
	_ datasource.DataSourceWithConfigValidators = &ExportableClipsDataSource{}
)

// ExportableClipsDataSource lists the rendered clips of a project or a collection.
type ExportableClipsDataSource struct {
	data *providerData
}

// NewExportableClipsDataSource is the data source constructor registered by the provider.
func NewExportableClipsDataSource() datasource.DataSource {
	return &ExportableClipsDataSource{}
}

// Metadata sets the data source type name.
func (d *ExportableClipsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_exportable_clips"
}

// Schema describes the data source.
func (d *ExportableClipsDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: desc, Computed: true}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Exportable clips of a project or of a collection, every page of them. For a project " +
			"managed in the same configuration, use the `clips` attribute of `clipper_clip_project` instead: it stays " +
			"known when the project changes in place, while this data source is read again at apply whenever the " +
			"project has a pending change, which makes every id taken from it unknown in the plan (replacing the posts, " +
			"schedules and collection contents that use it). Use the data source for projects this configuration does " +
			"not manage, and for the clips of a collection.",
		Attributes: map[string]schema.Attribute{
			"timeouts": dataSourceTimeoutsAttribute(ctx),
			"id":       str("The `project_id` or `collection_id` the clips were listed by."),
			"project_id": schema.StringAttribute{
				MarkdownDescription: "List the clips of this project. Exactly one of `project_id` and `collection_id` is required.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"collection_id": schema.StringAttribute{
				MarkdownDescription: "List the clips of this collection. Exactly one of `project_id` and `collection_id` is required.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"clips": schema.ListNestedAttribute{
				MarkdownDescription: "The clips, in the service's order.",
				Computed:            true,
				NestedObject:        schema.NestedAttributeObject{Attributes: computedAttributes(exportableClipAttributes())},
			},
		},
	}
}

// ConfigValidators requires exactly one of the two filters.
func (d *ExportableClipsDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("project_id"), path.MatchRoot("collection_id")),
	}
}

// Configure receives the provider's client.
func (d *ExportableClipsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// Read lists every page of clips.
func (d *ExportableClipsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg exportableClipsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, timeout, ok := withTimeout(ctx, cfg.Timeouts.Read, defaultDataSourceReadTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	filter := client.ClipFilter{ProjectID: cfg.ProjectID.ValueString(), CollectionID: cfg.CollectionID.ValueString()}
	clips, err := d.data.Client.ListExportableClips(ctx, filter)
	if err != nil {
		resp.Diagnostics.Append(readFailure(ctx, "Unable to list exportable clips", timeout, err))
		return
	}
	cfg.ID = types.StringValue(filter.ProjectID + filter.CollectionID)
	var diags diag.Diagnostics
	cfg.Clips, diags = exportableClipsList(ctx, clips)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}

type exportableClipsModel struct {
	Timeouts     timeouts.Value `tfsdk:"timeouts"`
	ID           types.String   `tfsdk:"id"`
	ProjectID    types.String   `tfsdk:"project_id"`
	CollectionID types.String   `tfsdk:"collection_id"`
	Clips        types.List     `tfsdk:"clips"`
}
