// Package provider implements the clipper Terraform provider: its configuration,
// the clipper_clip_project, collection and social posting resources and the
// data sources.
package provider

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/diagline"
	"github.com/clipperhq/terraform-provider-clipper/internal/provider/validators"
)

// Environment variables read when the matching provider argument is not set.
const (
	envAPIKey  = "CLIPPER_API_KEY"
	envBaseURL = "CLIPPER_BASE_URL"
	envOrgID   = "CLIPPER_ORG_ID"
)

// Defaults of the provider arguments: the client's, a local clipperd and the
// service's per-key limit.
const (
	defaultBaseURL           = client.DefaultBaseURL
	defaultRequestsPerMinute = client.DefaultRequestsPerMinute
	defaultMaxConcurrent     = client.DefaultMaxConcurrentProjects
)

var _ provider.Provider = &ClipperProvider{}

// ClipperProvider is the provider implementation.
type ClipperProvider struct {
	// version is "dev" for local builds, "test" in acceptance tests and the
	// release version when built by goreleaser.
	version string
	// wait overrides how the resource polls a project; tests shorten it so a
	// run does not spend most of its time sleeping. Zero values use the client's defaults.
	wait client.WaitOptions
	// shared is what every client this provider builds shares: the rate
	// limiter of each key and, per organization, the concurrent-project
	// slots, the clip listings of COMPLETE projects and the processing times
	// learned. It lives as long as the provider value, not one Configure
	// call. Terraform starts a provider process for each provider
	// configuration of a command, serving one provider value, so in a normal
	// run this is one per process. A debug (reattached) server serves every
	// configuration and command from one value, and an acceptance test runs
	// all its steps against one value, calling Configure each time; the
	// clients of the same base URL, key and organization those calls build
	// must still draw from one rate window and one set of slots, or together
	// they would exceed what the service allows.
	shared client.Shared
	// now is the clock publish times are checked against; nil is time.Now.
	// Acceptance tests that let a schedule's time pass give the provider the
	// clock they give clipperd, and move both instead of waiting.
	now func() time.Time
}

// ClipperProviderModel is the provider configuration.
type ClipperProviderModel struct {
	APIKey            types.String `tfsdk:"api_key"`
	BaseURL           types.String `tfsdk:"base_url"`
	OrgID             types.String `tfsdk:"org_id"`
	RequestsPerMinute types.Int64  `tfsdk:"requests_per_minute"`
	MaxConcurrent     types.Int64  `tfsdk:"max_concurrent_projects"`
}

// providerData is what Configure hands to every resource and data source.
type providerData struct {
	Client *client.Client
	Wait   client.WaitOptions
	// Collections holds the collection listings shared by the collection
	// resources and data sources of this provider (collection_cache.go).
	Collections *collectionCache
	// Now, when set, is the clock of publish times and of the expiry of
	// clip addresses (ClipperProvider.now).
	Now func() time.Time
}

// clock is the provider's clock: Now, or the wall clock.
func (d *providerData) clock() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

// New returns a constructor of the provider for providerserver.
func New(version string, opts ...Option) func() provider.Provider {
	return func() provider.Provider {
		p := &ClipperProvider{version: version}
		for _, opt := range opts {
			opt(p)
		}
		return p
	}
}

// Server returns the provider's protocol server as Terraform is served it
// (main.go) and as the acceptance tests run it: the framework's server, with
// the attribute paths of its diagnostics cut where Terraform finds them in the
// configuration (internal/diagline), so an error on a nested attribute cites
// its argument's line rather than the resource block's first.
func Server(version string, opts ...Option) func() (tfprotov6.ProviderServer, error) {
	framework := providerserver.NewProtocol6WithError(New(version, opts...)())
	return func() (tfprotov6.ProviderServer, error) {
		inner, err := framework()
		if err != nil {
			return nil, err
		}
		return diagline.Wrap(inner), nil
	}
}

// Option changes how a provider made by New polls and tells the time. The
// acceptance tests, in their own package, use them; a release sets none.
type Option func(*ClipperProvider)

// WithWait sets how resources poll a project (ClipperProvider.wait).
func WithWait(wait client.WaitOptions) Option {
	return func(p *ClipperProvider) { p.wait = wait }
}

// WithClock sets the clock publish times are checked against
// (ClipperProvider.now); nil is the wall clock.
func WithClock(now func() time.Time) Option {
	return func(p *ClipperProvider) { p.now = now }
}

// Metadata sets the provider type name, the prefix of every resource name.
func (p *ClipperProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "clipper"
	resp.Version = p.version
}

// Schema describes the provider arguments.
func (p *ClipperProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The clipper provider manages video clipping projects and collections of their clips on the " +
			"clipping service (or a self-hosted `clipperd`), publishes clips to connected social accounts now or on a " +
			"schedule, and reads clips, brand templates, connected social accounts and generated post copy.",
		Attributes: map[string]schema.Attribute{
			"api_key": schema.StringAttribute{
				MarkdownDescription: "API key sent as a bearer token. May also be set with the `" + envAPIKey + "` environment variable.",
				Optional:            true,
				Sensitive:           true,
			},
			"base_url": schema.StringAttribute{
				MarkdownDescription: "Base address of the service API. May also be set with the `" + envBaseURL +
					"` environment variable. Defaults to `" + defaultBaseURL + "`.",
				Optional:   true,
				Validators: []validator.String{validators.HTTPURL()},
			},
			"org_id": schema.StringAttribute{
				MarkdownDescription: "Organization id sent as the `x-svc-org-id` header; needed by users who belong to several " +
					"organizations. May also be set with the `" + envOrgID + "` environment variable.",
				Optional: true,
			},
			"requests_per_minute": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("Client-side request budget per minute, shared by every resource "+
					"of this provider. Defaults to `%d`, the service's limit per API key.", defaultRequestsPerMinute),
				Optional:   true,
				Validators: []validator.Int64{int64validator.AtLeast(1)},
			},
			"max_concurrent_projects": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("The organization's cap on projects in flight. Defaults to `%d` "+
					"(Pro Beta and Max plans); set `50` on a Business plan. A `clipper_clip_project` create waits in "+
					"the provider for one of its projects to finish instead of being refused by the service; a refusal "+
					"caused by projects of other runs lowers the cap this run uses.", defaultMaxConcurrent),
				Optional:   true,
				Validators: []validator.Int64{int64validator.AtLeast(1)},
			},
		},
	}
}

// Configure builds the one API client every resource and data source uses.
func (p *ClipperProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg ClipperProviderModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}

	// An unknown value cannot be resolved until apply; say so instead of
	// silently falling back to an environment variable.
	unknown := map[string]bool{
		"api_key":                 cfg.APIKey.IsUnknown(),
		"base_url":                cfg.BaseURL.IsUnknown(),
		"org_id":                  cfg.OrgID.IsUnknown(),
		"requests_per_minute":     cfg.RequestsPerMinute.IsUnknown(),
		"max_concurrent_projects": cfg.MaxConcurrent.IsUnknown(),
	}
	for _, name := range []string{"api_key", "base_url", "org_id", "requests_per_minute", "max_concurrent_projects"} {
		if unknown[name] {
			resp.Diagnostics.AddAttributeError(path.Root(name), "Unknown clipper provider argument",
				fmt.Sprintf("The provider cannot create the API client because %s is not known until apply. "+
					"Set it to a static value or use the environment variable instead.", name))
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}

	apiKey := firstNonEmpty(cfg.APIKey.ValueString(), os.Getenv(envAPIKey))
	baseURL := firstNonEmpty(cfg.BaseURL.ValueString(), os.Getenv(envBaseURL), defaultBaseURL)
	orgID := firstNonEmpty(cfg.OrgID.ValueString(), os.Getenv(envOrgID))
	rpm := intOr(cfg.RequestsPerMinute, defaultRequestsPerMinute)
	maxConcurrent := intOr(cfg.MaxConcurrent, defaultMaxConcurrent)

	if apiKey == "" {
		resp.Diagnostics.AddAttributeError(path.Root("api_key"), "Missing clipper API key",
			"The provider needs an API key: set the api_key argument in the provider block or the "+
				envAPIKey+" environment variable.")
		return
	}

	// The API key is never a log field; the client's logs mask it (provider_logger.go).
	ctx = tflog.SetField(ctx, "clipper_base_url", baseURL)
	tflog.Debug(ctx, "Creating clipper API client")

	c, err := client.New(client.Config{
		BaseURL:               baseURL,
		APIKey:                apiKey,
		OrgID:                 orgID,
		RequestsPerMinute:     rpm,
		MaxConcurrentProjects: maxConcurrent,
		UserAgent:             "terraform-provider-clipper/" + p.version,
		Logger:                tflogAdapter{apiKey: apiKey},
		Shared:                &p.shared,
	})
	if err != nil {
		resp.Diagnostics.AddError("Unable to create clipper API client", err.Error())
		return
	}

	data := &providerData{Client: c, Wait: p.wait, Collections: newCollectionCache(c), Now: p.now}
	resp.ResourceData = data
	resp.DataSourceData = data
	tflog.Info(ctx, "Configured clipper API client", map[string]any{"requests_per_minute": rpm, "max_concurrent_projects": maxConcurrent})
}

// intOr is v's value, or def when v is not set.
func intOr(v types.Int64, def int) int {
	if v.IsNull() {
		return def
	}
	return int(v.ValueInt64())
}

// Resources lists the resources of the provider.
func (p *ClipperProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewClipProjectResource,
		NewCollectionResource,
		NewCollectionContentResource,
		NewPublishScheduleResource,
		NewPostTaskResource,
		NewCensorJobResource,
	}
}

// DataSources lists the data sources of the provider.
func (p *ClipperProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewExportableClipsDataSource,
		NewBrandTemplatesDataSource,
		NewSocialAccountsDataSource,
		NewCollectionsDataSource,
		NewCollectionExportDataSource,
		NewSocialCopyDataSource,
	}
}

// providerDataFrom unwraps ProviderData in a resource's or data source's
// Configure. It returns nil without a diagnostic when the provider is not
// configured yet (Terraform calls Configure early, during validation).
func providerDataFrom(data any, diags *diag.Diagnostics) *providerData {
	if data == nil {
		return nil
	}
	pd, ok := data.(*providerData)
	if !ok {
		diags.AddError("Unexpected provider data type",
			fmt.Sprintf("Expected *providerData, got %T. Please report this issue to the provider developers.", data))
		return nil
	}
	return pd
}

// firstNonEmpty returns the first non-blank value.
func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
