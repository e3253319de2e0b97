package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/provider/validators"
)

var (
	_ datasource.DataSource              = &SocialCopyDataSource{}
	_ datasource.DataSourceWithConfigure = &SocialCopyDataSource{}
)

// Defaults of a copy job's wait: the whole read, and the pause between two
// looks at the job when the provider sets no poll interval.
const (
	defaultCopyJobTimeout = 5 * time.Minute
	defaultCopyJobPoll    = 2 * time.Second
)

// SocialCopyDataSource generates the copy of a post (title, description,
// hashtags) for one clip and one connected account.
type SocialCopyDataSource struct {
	data *providerData
}

// NewSocialCopyDataSource is the data source constructor registered by the provider.
func NewSocialCopyDataSource() datasource.DataSource {
	return &SocialCopyDataSource{}
}

// Metadata sets the data source type name.
func (d *SocialCopyDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_social_copy"
}

// Schema describes the data source.
func (d *SocialCopyDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: desc, Computed: true}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Generated copy for posting a clip to a connected account: each read starts a social copy " +
			"job (`POST /api/social-copy-jobs`) and waits for it to complete.",
		Attributes: map[string]schema.Attribute{
			"id": computed("Id of the copy job of this read (`jobId`)."),
			"content_id": schema.StringAttribute{
				MarkdownDescription: contentIDDescription,
				Required:            true,
				Validators:          []validator.String{validators.PostContentID()},
			},
			"post_account_id": schema.StringAttribute{
				MarkdownDescription: "The connected account the copy is for (`postAccountId`): the copy fits its platform.",
				Required:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"sub_account_id": schema.StringAttribute{
				MarkdownDescription: "The account's sub-account (`subAccountId`), for an account that has one (Facebook page, " +
					"Instagram business account, LinkedIn URN). Omitted, the job is sent with an empty `subAccountId`.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"prompt": schema.StringAttribute{
				MarkdownDescription: "Style or tone of the copy (`prompt`), such as `playful, for developers`.",
				Optional:            true,
			},
			"force_regenerate": schema.BoolAttribute{
				MarkdownDescription: "Write the copy again instead of reusing the service's cached copy for the same clip, " +
					"account and prompt (`forceRegenerate`). Every read then makes new copy, which may differ each time.",
				Optional: true,
			},
			"title":       computed("Generated title."),
			"description": computed("Generated description."),
			"hashtags":    computed("Generated hashtags, one string."),
			"cached": schema.BoolAttribute{
				MarkdownDescription: "Whether the service answered with copy it had made before (`cached`).",
				Computed:            true,
			},
			"timeouts": copyTimeoutsAttribute(ctx),
		},
	}
}

// copyTimeoutsAttribute is the timeouts argument with a description for the docs.
func copyTimeoutsAttribute(ctx context.Context) schema.Attribute {
	return describedReadTimeouts(ctx, fmt.Sprintf("`read` bounds starting the copy job and waiting for it to complete, as a "+
		"duration string such as `30s` or `2m`; default `%dm`.", int(defaultCopyJobTimeout.Minutes())))
}

// Configure receives the provider's client.
func (d *SocialCopyDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// Read starts a copy job and waits for it to complete.
func (d *SocialCopyDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg socialCopyModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, timeout, ok := withTimeout(ctx, cfg.Timeouts.Read, defaultCopyJobTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	body, diags := cfg.request()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	jobID, err := d.data.Client.CreateSocialCopyJob(ctx, body)
	if err != nil {
		resp.Diagnostics.Append(socialRefusal("Unable to start social copy job",
			fmt.Sprintf("starting a copy job for clip %s and account %s failed: %s", cfg.ContentID.ValueString(), body.PostAccountID, err), err))
		return
	}
	fields := map[string]any{"job_id": jobID, "content_id": cfg.ContentID.ValueString(), "post_account_id": body.PostAccountID}
	tflog.Info(ctx, "Started social copy job", fields)
	job, err := d.waitForCopy(ctx, jobID)
	if err != nil {
		resp.Diagnostics.Append(copyJobFailure(jobID, timeout, err))
		return
	}
	tflog.Info(ctx, "Social copy job completed", fields)
	cfg.ID = types.StringValue(jobID)
	cfg.Title = types.StringValue(job.Title)
	cfg.Description = types.StringValue(job.Description)
	cfg.Hashtags = types.StringValue(job.Hashtags)
	cfg.Cached = types.BoolValue(job.Cached)
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}

// errCopyJobFailed ends a wait on a FAILED job.
var errCopyJobFailed = errors.New("the job FAILED")

// waitForCopy looks at the job until it is COMPLETED (it returns the job),
// FAILED (errCopyJobFailed, wrapped with the job's reason when the service
// gives one) or ctx ends (ctx's error, with the last status seen); the first
// look is at once, since a cached copy is complete when the job is made.
func (d *SocialCopyDataSource) waitForCopy(ctx context.Context, id string) (*apitypes.SocialCopyJob, error) {
	interval := d.data.Wait.PollInterval
	if interval <= 0 {
		interval = defaultCopyJobPoll
	}
	last := "unread"
	for {
		job, err := d.data.Client.GetSocialCopyJob(ctx, id)
		if err != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("last status %s: %w", last, ctx.Err())
		}
		if err != nil {
			return nil, err
		}
		last = job.Status
		switch job.Status {
		case apitypes.CopyCompleted:
			return job, nil
		case apitypes.CopyFailed:
			if job.Error != "" {
				return nil, fmt.Errorf("%w: %s", errCopyJobFailed, job.Error)
			}
			return nil, fmt.Errorf("%w; the service gives no reason", errCopyJobFailed)
		}
		tflog.Debug(ctx, "Social copy job not complete yet", map[string]any{"job_id": id, "status": job.Status})
		t := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("last status %s: %w", last, ctx.Err())
		case <-t.C:
		}
	}
}

// copyJobFailure explains why waiting for a copy job ended without copy.
func copyJobFailure(id string, timeout time.Duration, err error) diag.Diagnostic {
	switch {
	case errors.Is(err, errCopyJobFailed):
		return diag.NewErrorDiagnostic("Social copy job failed", fmt.Sprintf("Copy job %s: %s.", id, err))
	case errors.Is(err, context.DeadlineExceeded):
		return diag.NewAttributeErrorDiagnostic(path.Root("timeouts").AtName("read"), "Timed out waiting for social copy job",
			fmt.Sprintf("timeouts.read: copy job %s did not complete within %s (%s). Raise timeouts.read to wait longer.", id, timeout, err))
	}
	return diag.NewErrorDiagnostic("Error waiting for social copy job", fmt.Sprintf("Reading copy job %s failed: %s", id, err))
}

// request is the body of POST /api/social-copy-jobs. subAccountId is always
// sent, "" for an account without a sub-account.
func (m *socialCopyModel) request() (apitypes.SocialCopyJobRequest, diag.Diagnostics) {
	var diags diag.Diagnostics
	projectID, clipID := splitContentID(m.ContentID, &diags)
	return apitypes.SocialCopyJobRequest{
		ProjectID: projectID, ClipID: clipID, PostAccountID: m.PostAccountID.ValueString(),
		SubAccountID: m.SubAccountID.ValueString(), Prompt: m.Prompt.ValueString(), ForceRegenerate: m.ForceRegenerate.ValueBool(),
	}, diags
}

type socialCopyModel struct {
	ID              types.String   `tfsdk:"id"`
	ContentID       types.String   `tfsdk:"content_id"`
	PostAccountID   types.String   `tfsdk:"post_account_id"`
	SubAccountID    types.String   `tfsdk:"sub_account_id"`
	Prompt          types.String   `tfsdk:"prompt"`
	ForceRegenerate types.Bool     `tfsdk:"force_regenerate"`
	Title           types.String   `tfsdk:"title"`
	Description     types.String   `tfsdk:"description"`
	Hashtags        types.String   `tfsdk:"hashtags"`
	Cached          types.Bool     `tfsdk:"cached"`
	Timeouts        timeouts.Value `tfsdk:"timeouts"`
}
