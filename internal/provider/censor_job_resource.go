package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/provider/validators"
)

var (
	_ resource.Resource              = &CensorJobResource{}
	_ resource.ResourceWithConfigure = &CensorJobResource{}
)

// Defaults of the censor job's timeouts and how often it is looked at when
// the provider sets no poll interval.
const (
	defaultCensorCreateTimeout = 10 * time.Minute
	defaultCensorReadTimeout   = 5 * time.Minute
	defaultCensorJobPoll       = 2 * time.Second
)

// CensorJobResource censors a clip's profanity (POST /api/censor-jobs) and
// waits for the job to conclude.
type CensorJobResource struct {
	data *providerData
}

// NewCensorJobResource is the resource constructor registered by the provider.
func NewCensorJobResource() resource.Resource {
	return &CensorJobResource{}
}

// censorJobModel is the resource's state.
type censorJobModel struct {
	ID        types.String   `tfsdk:"id"`
	ContentID types.String   `tfsdk:"content_id"`
	BeepSound types.Bool     `tfsdk:"beep_sound"`
	Status    types.String   `tfsdk:"status"`
	Timeouts  timeouts.Value `tfsdk:"timeouts"`
}

// Metadata sets the resource type name.
func (r *CensorJobResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_censor_job"
}

// Schema describes the resource.
func (r *CensorJobResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Censors a clip's profanity (`POST /api/censor-jobs`): the words of the service's profanity " +
			"list heard in the clip's transcript are replaced by silence, or by a 1 kHz beep, and the clip's export and " +
			"preview addresses then serve the censored render. Creating it waits until the job is `CONCLUDED`, riding out an " +
			"outage of the service until `timeouts.create`; a `FAILED` job is an error and leaves the resource tainted. Changing any argument runs a new job; destroying it only " +
			"forgets the job: the clip stays censored.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The job's id (`jobId`).",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"content_id": schema.StringAttribute{
				MarkdownDescription: contentIDDescription,
				Required:            true,
				Validators:          []validator.String{validators.ContentID(), validators.PostContentID()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"beep_sound": schema.BoolAttribute{
				MarkdownDescription: "Replace each word with a 1 kHz beep (`options.beepSound`) instead of silence. Default `false`.",
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(false),
				PlanModifiers:       []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "The job's status as last read: `CONCLUDED` once created; `QUEUED`, `PROCESSING`, " +
					"`FAILED` or `UNKNOWN` as the service reports it on a refresh.",
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"timeouts": censorTimeoutsAttribute(ctx),
		},
	}
}

// censorTimeoutsAttribute is the timeouts argument with a description for the docs.
func censorTimeoutsAttribute(ctx context.Context) schema.Attribute {
	a := timeouts.Attributes(ctx, timeouts.Opts{Create: true, Read: true})
	nested, ok := a.(schema.SingleNestedAttribute)
	if !ok {
		return a
	}
	nested.MarkdownDescription = fmt.Sprintf("Operation timeouts as duration strings such as `30s` or `5m`. `create` "+
		"(default `%dm`) bounds starting the job and waiting for it to conclude; `read` defaults to `%dm`.",
		int(defaultCensorCreateTimeout.Minutes()), int(defaultCensorReadTimeout.Minutes()))
	return checkedTimeouts(nested)
}

// Configure receives the provider's client.
func (r *CensorJobResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// Create starts the job and waits for it to conclude. Once the job exists
// every exit keeps it in state, so a failure leaves it tainted.
func (r *CensorJobResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan censorJobModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, timeout, ok := withTimeout(ctx, plan.Timeouts.Create, defaultCensorCreateTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	ctx = client.RideOutOutages(ctx) // until timeouts.create, as the wait does
	var diags diag.Diagnostics
	projectID, clipID := splitContentID(plan.ContentID, &diags)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	job, err := r.data.Client.CreateCensorJob(ctx, apitypes.CensorJobRequest{
		ProjectID: projectID, ClipID: clipID, Options: apitypes.CensorOptions{BeepSound: plan.BeepSound.ValueBool()},
	})
	if err != nil {
		resp.Diagnostics.AddError("Unable to start censor job",
			fmt.Sprintf("Starting a censor job for clip %s failed: %s", plan.ContentID.ValueString(), err))
		return
	}
	fields := map[string]any{"job_id": job.JobID, "content_id": plan.ContentID.ValueString(), "beep_sound": plan.BeepSound.ValueBool()}
	tflog.Info(ctx, "Started censor job", fields)
	plan.ID = types.StringValue(job.JobID)
	plan.Status = types.StringValue(apitypes.CensorQueued)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	status, err := r.waitForCensor(ctx, job.JobID, projectID)
	plan.Status = types.StringValue(status)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if err != nil {
		resp.Diagnostics.Append(censorJobFailure(job.JobID, timeout, err))
		return
	}
	tflog.Info(ctx, "Censor job concluded", fields)
}

// errCensorJobFailed ends a wait on a FAILED job.
var errCensorJobFailed = errors.New("the job FAILED")

// waitForCensor waits until job id of project projectID is CONCLUDED, FAILED
// (errCensorJobFailed with the job's reason) or ctx ends, riding out an
// outage of the service (client.WaitForCensorJob); it returns the last
// status seen.
func (r *CensorJobResource) waitForCensor(ctx context.Context, id, projectID string) (string, error) {
	opts := client.WaitOptions{PollInterval: r.data.Wait.PollInterval, MaxPollInterval: r.data.Wait.MaxPollInterval}
	if opts.PollInterval <= 0 {
		opts.PollInterval = defaultCensorJobPoll
	}
	st, err := r.data.Client.WaitForCensorJob(ctx, id, projectID, opts)
	if st == nil { // no job id to wait for
		return apitypes.CensorQueued, err
	}
	if err != nil {
		return st.Status, err
	}
	if st.Status == apitypes.CensorFailed {
		if st.Error != nil && *st.Error != "" {
			return st.Status, fmt.Errorf("%w: %s", errCensorJobFailed, *st.Error)
		}
		return st.Status, fmt.Errorf("%w; the service gives no reason", errCensorJobFailed)
	}
	return st.Status, nil
}

// censorJobFailure explains why waiting for a censor job ended without
// CONCLUDED.
func censorJobFailure(id string, timeout time.Duration, err error) diag.Diagnostic {
	const tainted = " The job stays in state marked as tainted; the next apply runs a new job."
	switch {
	case errors.Is(err, errCensorJobFailed):
		return diag.NewErrorDiagnostic("Censor job failed", fmt.Sprintf("Censor job %s: %s.%s", id, err, tainted))
	case errors.Is(err, context.DeadlineExceeded):
		return diag.NewAttributeErrorDiagnostic(path.Root("timeouts").AtName("create"), "Timed out waiting for censor job",
			fmt.Sprintf("timeouts.create: censor job %s did not conclude within %s (%s). Raise timeouts.create to wait longer.%s",
				id, timeout, err, tainted))
	}
	return diag.NewErrorDiagnostic("Error waiting for censor job", fmt.Sprintf("Reading censor job %s failed: %s.%s", id, err, tainted))
}

// Read refreshes the job's status; a job the service no longer knows is
// removed from state.
func (r *CensorJobResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state censorJobModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, _, ok := withTimeout(ctx, state.Timeouts.Read, defaultCensorReadTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	id := state.ID.ValueString()
	projectID, _, _ := strings.Cut(state.ContentID.ValueString(), ".")
	st, err := r.data.Client.GetCensorJob(ctx, id, projectID)
	if client.IsNotFound(err) {
		resp.Diagnostics.AddWarning("Censor job not found",
			fmt.Sprintf("Censor job %s is no longer known to the service; removing it from state.", id))
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Unable to read censor job", fmt.Sprintf("Reading censor job %s failed: %s", id, err))
		return
	}
	state.Status = types.StringValue(st.Status)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update is never planned with an argument change, since every argument
// replaces the job; it records the plan (a timeouts change).
func (r *CensorJobResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	recordPlan[censorJobModel](ctx, req, resp)
}

// Delete forgets the job: the service has no endpoint that undoes censoring.
func (r *CensorJobResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state censorJobModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	tflog.Info(ctx, "Forgetting censor job; the clip stays censored",
		map[string]any{"job_id": state.ID.ValueString(), "content_id": state.ContentID.ValueString()})
}
