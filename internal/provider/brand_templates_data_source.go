package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

var (
	_ datasource.DataSource              = &BrandTemplatesDataSource{}
	_ datasource.DataSourceWithConfigure = &BrandTemplatesDataSource{}
)

// brandTemplateTypes are the values of a brand template's type: the presets
// every account has and the account's own templates. Any other filter would
// silently list nothing.
var brandTemplateTypes = []string{"preset", "custom"}

// BrandTemplatesDataSource lists the brand templates the account can use:
// the presets and its own.
type BrandTemplatesDataSource struct {
	data *providerData
}

// NewBrandTemplatesDataSource is the data source constructor registered by the provider.
func NewBrandTemplatesDataSource() datasource.DataSource {
	return &BrandTemplatesDataSource{}
}

// Metadata sets the data source type name.
func (d *BrandTemplatesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_brand_templates"
}

// Schema describes the data source.
func (d *BrandTemplatesDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Brand templates usable as `brand_template_id` of a `clipper_clip_project`: the ten presets " +
			"(`preset-fancy-Karaoke`, ...) and the account's own templates.",
		Attributes: map[string]schema.Attribute{
			"timeouts": dataSourceTimeoutsAttribute(ctx),
			"id": schema.StringAttribute{
				MarkdownDescription: "`mine`, or `mine/<type>` when filtered by `type`.",
				Computed:            true,
			},
			"type": schema.StringAttribute{
				MarkdownDescription: "Only list templates of this type: `preset` or `custom`.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf(brandTemplateTypes...)},
			},
			"templates": schema.ListNestedAttribute{
				MarkdownDescription: "The templates.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"template_id": schema.StringAttribute{MarkdownDescription: "Template id, the value of `brand_template_id`.", Computed: true},
						"name":        schema.StringAttribute{MarkdownDescription: "Display name.", Computed: true},
						"is_default":  schema.BoolAttribute{MarkdownDescription: "Whether projects without a template use this one.", Computed: true},
						"type":        schema.StringAttribute{MarkdownDescription: "Template type, e.g. `preset` or `custom`.", Computed: true},
					},
				},
			},
		},
	}
}

// Configure receives the provider's client.
func (d *BrandTemplatesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// Read lists the templates, filtered by type when asked.
func (d *BrandTemplatesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg brandTemplatesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, timeout, ok := withTimeout(ctx, cfg.Timeouts.Read, defaultDataSourceReadTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	templates, err := d.data.Client.ListBrandTemplates(ctx)
	if err != nil {
		resp.Diagnostics.Append(readFailure(ctx, "Unable to list brand templates", timeout, err))
		return
	}
	cfg.ID, cfg.Templates = filterMine(cfg.Type, templates,
		func(t apitypes.BrandTemplate) string { return t.Type }, brandTemplateFromAPI)
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}

type brandTemplatesModel struct {
	Timeouts  timeouts.Value       `tfsdk:"timeouts"`
	ID        types.String         `tfsdk:"id"`
	Type      types.String         `tfsdk:"type"`
	Templates []brandTemplateModel `tfsdk:"templates"`
}

type brandTemplateModel struct {
	TemplateID types.String `tfsdk:"template_id"`
	Name       types.String `tfsdk:"name"`
	IsDefault  types.Bool   `tfsdk:"is_default"`
	Type       types.String `tfsdk:"type"`
}

func brandTemplateFromAPI(t apitypes.BrandTemplate) brandTemplateModel {
	return brandTemplateModel{
		TemplateID: types.StringValue(t.TemplateID),
		Name:       types.StringValue(t.Name),
		IsDefault:  types.BoolValue(t.IsDefault),
		Type:       types.StringValue(t.Type),
	}
}
