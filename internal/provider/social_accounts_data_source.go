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
	_ datasource.DataSource              = &SocialAccountsDataSource{}
	_ datasource.DataSourceWithConfigure = &SocialAccountsDataSource{}
)

// SocialAccountsDataSource lists the social accounts connected to the account.
type SocialAccountsDataSource struct {
	data *providerData
}

// NewSocialAccountsDataSource is the data source constructor registered by the provider.
func NewSocialAccountsDataSource() datasource.DataSource {
	return &SocialAccountsDataSource{}
}

// Metadata sets the data source type name.
func (d *SocialAccountsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_social_accounts"
}

// Schema describes the data source.
func (d *SocialAccountsDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: desc, Computed: true}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Social accounts connected for publishing clips; the list may be empty.",
		Attributes: map[string]schema.Attribute{
			"timeouts": dataSourceTimeoutsAttribute(ctx),
			"id":       str("`mine`, or `mine/<platform>` when filtered by `platform`."),
			"platform": schema.StringAttribute{
				MarkdownDescription: "Only list accounts of this platform: `YOUTUBE`, `TIKTOK_BUSINESS`, `FACEBOOK_PAGE`, " +
					"`INSTAGRAM_BUSINESS`, `LINKEDIN` or `TWITTER`.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.OneOf(apitypes.SocialPlatforms...)},
			},
			"accounts": schema.ListNestedAttribute{
				MarkdownDescription: "The connected accounts.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"post_account_id":       str("Identifier of the connected account record, used to post."),
						"sub_account_id":        str("Facebook page, Instagram business account or LinkedIn URN, when the platform has them."),
						"platform":              str("Platform of the account."),
						"ext_user_id":           str("Account id on the platform."),
						"ext_user_name":         str("Display name on the platform."),
						"ext_user_picture_link": str("Avatar address, when known."),
						"ext_user_profile_link": str("Public profile address, when known."),
					},
				},
			},
		},
	}
}

// Configure receives the provider's client.
func (d *SocialAccountsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// Read lists the accounts, filtered by platform when asked.
func (d *SocialAccountsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg socialAccountsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, timeout, ok := withTimeout(ctx, cfg.Timeouts.Read, defaultDataSourceReadTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	accounts, err := d.data.Client.ListSocialAccounts(ctx)
	if err != nil {
		resp.Diagnostics.Append(readFailure(ctx, "Unable to list social accounts", timeout, err))
		return
	}
	cfg.ID, cfg.Accounts = filterMine(cfg.Platform, accounts,
		func(a apitypes.SocialAccount) string { return a.Platform }, socialAccountFromAPI)
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}

type socialAccountsModel struct {
	Timeouts timeouts.Value       `tfsdk:"timeouts"`
	ID       types.String         `tfsdk:"id"`
	Platform types.String         `tfsdk:"platform"`
	Accounts []socialAccountModel `tfsdk:"accounts"`
}

type socialAccountModel struct {
	PostAccountID      types.String `tfsdk:"post_account_id"`
	SubAccountID       types.String `tfsdk:"sub_account_id"`
	Platform           types.String `tfsdk:"platform"`
	ExtUserID          types.String `tfsdk:"ext_user_id"`
	ExtUserName        types.String `tfsdk:"ext_user_name"`
	ExtUserPictureLink types.String `tfsdk:"ext_user_picture_link"`
	ExtUserProfileLink types.String `tfsdk:"ext_user_profile_link"`
}

func socialAccountFromAPI(a apitypes.SocialAccount) socialAccountModel {
	return socialAccountModel{
		PostAccountID:      types.StringValue(a.PostAccountID),
		SubAccountID:       optionalStringValue(a.SubAccountID),
		Platform:           types.StringValue(a.Platform),
		ExtUserID:          types.StringValue(a.ExtUserID),
		ExtUserName:        types.StringValue(a.ExtUserName),
		ExtUserPictureLink: optionalStringValue(a.ExtUserPictureLink),
		ExtUserProfileLink: optionalStringValue(a.ExtUserProfileLink),
	}
}
