package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
)

// Default operation timeouts, overridable in the timeouts argument.
const (
	defaultCreateTimeout = 60 * time.Minute
	defaultReadTimeout   = 5 * time.Minute
	defaultUpdateTimeout = 5 * time.Minute
)

var (
	pathCuration = path.Root("curation")
	pathRender   = path.Root("render")
)

var (
	_ resource.Resource                     = &ClipProjectResource{}
	_ resource.ResourceWithConfigure        = &ClipProjectResource{}
	_ resource.ResourceWithImportState      = &ClipProjectResource{}
	_ resource.ResourceWithConfigValidators = &ClipProjectResource{}
)

// ClipProjectResource manages a clipping project.
type ClipProjectResource struct {
	data *providerData
}

// dropEmptyUpdate drops an update that would change nothing. The framework leaves
// updated_at unknown whenever Terraform's proposed state differs from the
// prior one, before the attribute plan modifiers run; when the configuration
// only spells the same request another way (an empty list for none, inside
// curation or render), samePrefs then plans the state's value, and without
// this every later plan would show the same empty update.
func dropEmptyUpdate(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	updatedAt := path.Root("updated_at")
	var planned, prior types.String
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, updatedAt, &planned)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, updatedAt, &prior)...)
	if resp.Diagnostics.HasError() || !planned.IsUnknown() {
		return
	}
	unchanged := resp.Plan
	if diags := unchanged.SetAttribute(ctx, updatedAt, prior); diags.HasError() {
		return
	}
	if unchanged.Raw.Equal(req.State.Raw) {
		resp.Plan = unchanged
	}
}

// NewClipProjectResource is the resource constructor registered by the provider.
func NewClipProjectResource() resource.Resource {
	return &ClipProjectResource{}
}

// Metadata sets the resource type name.
func (r *ClipProjectResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_clip_project"
}

// Schema is in clip_project_schema.go.
func (r *ClipProjectResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = clipProjectSchema(ctx)
}

// ConfigValidators holds the rules across top-level arguments; the rules
// inside nested arguments are validators of those arguments.
func (r *ClipProjectResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		resourcevalidator.ExactlyOneOf(path.MatchRoot("video_url"), path.MatchRoot("source_file")),
	}
}

// Configure receives the provider's client.
func (r *ClipProjectResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// Create uploads the source when it is a local file, creates the project,
// records it in state at once and then waits for it to conclude.
func (r *ClipProjectResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan clipProjectModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, timeout, ok := withTimeout(ctx, plan.Timeouts.Create, defaultCreateTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	// Every call of the create rides out an outage until timeouts.create, as
	// the wait for completion does (see client.RideOutOutages).
	ctx = client.RideOutOutages(ctx)
	c := r.data.Client

	videoURL := plan.VideoURL.ValueString()
	if !plan.SourceFile.IsNull() {
		file := plan.SourceFile.ValueString()
		if resp.Diagnostics.Append(checkSourceFile(file)...); resp.Diagnostics.HasError() {
			return
		}
		tflog.Info(ctx, "Uploading source file", map[string]any{"source_file": file})
		uploadID, err := c.UploadFile(ctx, file)
		if err != nil {
			resp.Diagnostics.AddAttributeError(pathSourceFile, "Unable to upload source_file",
				fmt.Sprintf("Uploading %s failed: %s", file, err))
			return
		}
		videoURL = uploadID
	}

	body, diags := plan.createRequest(ctx, videoURL)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	project, err := c.CreateProject(ctx, body)
	if err != nil {
		resp.Diagnostics.AddError("Unable to create clip project", err.Error())
		return
	}
	tflog.Info(ctx, "Created clip project", map[string]any{"project_id": project.ID, "stage": project.Stage})

	// From here on the project exists: every exit keeps it in state, so a
	// failure leaves a tainted resource to replace rather than an orphan.
	wantVisibility := plan.Visibility.ValueString()
	plan.setReported(project)
	plan.setNoClips()
	if plan.BrandTemplateID.IsUnknown() {
		// Not configured: record the template the service applied.
		plan.BrandTemplateID = types.StringPointerValue(project.BrandTemplateID)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}

	// The create body has no visibility: projects start as DEFAULT.
	if wantVisibility != project.Visibility {
		updated, err := c.UpdateProjectVisibility(ctx, project.ID, wantVisibility)
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("visibility"), "Unable to set clip project visibility",
				fmt.Sprintf("Project %s was created but setting visibility %s failed: %s", project.ID, wantVisibility, err))
			return
		}
		project = updated
		plan.setReported(project)
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	}

	if !plan.WaitForCompletion.ValueBool() {
		return
	}
	project, err = r.waitForCompletion(ctx, project)
	if project != nil {
		plan.setReported(project)
	}
	if err != nil {
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		resp.Diagnostics.Append(waitFailure(plan.ID.ValueString(), timeout, err))
		return
	}
	resp.Diagnostics.Append(r.listClips(ctx, &plan, project, resp.Private)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Read refreshes the project. A project the service no longer has (404,
// deleted or purged) leaves the state so that the next plan recreates it.
func (r *ClipProjectResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state clipProjectModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, _, ok := withTimeout(ctx, state.Timeouts.Read, defaultReadTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()

	id := state.ID.ValueString()
	project, err := r.data.Client.GetProject(ctx, id)
	if client.IsNotFound(err) {
		resp.Diagnostics.AddWarning("Clip project not found",
			fmt.Sprintf("Project %s no longer exists on the service; removing it from state.", id))
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Unable to read clip project", err.Error())
		return
	}
	if project.IsDeleted || project.IsPurged {
		resp.Diagnostics.AddWarning("Clip project deleted",
			fmt.Sprintf("Project %s is deleted or purged on the service (is_deleted=%t, is_purged=%t); removing it from state.",
				id, project.IsDeleted, project.IsPurged))
		resp.State.RemoveResource(ctx)
		return
	}

	// Import stores only the id: no project_id yet means nothing to reconcile with.
	importing := state.ProjectID.IsNull()
	state.setReported(project)
	resp.Diagnostics.Append(state.readArguments(ctx, project, importing)...)
	if importing {
		state.WaitForCompletion = types.BoolValue(true)
	}
	// The clips are listed again only when those in state may be out of
	// date (clip_project_clips.go). A listing is the one the client shares
	// with every reader of this project's clips in this run (data sources).
	if clipsStillCurrent(ctx, req.Private, &state, project, r.data.clock()) {
		tflog.Debug(ctx, "Clip project unchanged since its clips were listed; keeping them", map[string]any{"project_id": id})
	} else {
		resp.Diagnostics.Append(r.listClips(ctx, &state, project, resp.Private)...)
	}
	if project.Stage == apitypes.StageStalled {
		resp.Diagnostics.Append(stalledWarning(project))
	}
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update changes visibility, the one argument the service can change. Other
// in-place changes (wait_for_completion, timeouts, the write-only source
// arguments of an imported project) only concern the provider.
func (r *ClipProjectResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state clipProjectModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, _, ok := withTimeout(ctx, plan.Timeouts.Update, defaultUpdateTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	c := r.data.Client

	id := state.ID.ValueString()
	var project *apitypes.Project
	var err error
	if !plan.Visibility.Equal(state.Visibility) {
		tflog.Info(ctx, "Updating clip project visibility", map[string]any{
			"project_id": id, "from": state.Visibility.ValueString(), "to": plan.Visibility.ValueString()})
		project, err = c.UpdateProjectVisibility(ctx, id, plan.Visibility.ValueString())
	} else {
		project, err = c.GetProject(ctx, id)
	}
	if err != nil {
		resp.Diagnostics.AddError("Unable to update clip project", err.Error())
		return
	}
	// The plan already holds the values that cannot change here (see
	// projectComputedAttributes); only what it left unknown is taken from the
	// answer, so the result matches the plan.
	var reported clipProjectModel
	reported.setReported(project)
	reported.BrandTemplateID = types.StringPointerValue(project.BrandTemplateID)
	// The clips stay as planned while the project stays COMPLETE
	// (planmodifiers.UseStateWhenComplete): the resources that use them
	// must not see them change in place. They are listed only when the plan
	// could not know them; kept, they stay recorded as listed for the
	// project before this update, so the next refresh lists them.
	if plan.ClipCount.IsUnknown() || plan.Clips.IsUnknown() {
		resp.Diagnostics.Append(r.listClips(ctx, &reported, project, resp.Private)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	fillUnknown(&plan, reported)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete only forgets the project: the service has no delete endpoint and
// projects expire on their own. It asks the service for the project so the
// warning names the expiry the service holds now, not a stale one.
func (r *ClipProjectResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state clipProjectModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, _, ok := withTimeout(ctx, state.Timeouts.Delete, defaultReadTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()

	id := state.ID.ValueString()
	expires := state.StorageExpireAt.ValueString()
	project, err := r.data.Client.GetProject(ctx, id)
	switch {
	case client.IsNotFound(err) || (err == nil && (project.IsDeleted || project.IsPurged)):
		tflog.Info(ctx, "Clip project already gone from the service", map[string]any{"project_id": id})
		return
	case err != nil:
		// Forgetting the project needs nothing from the service; say what is known.
		tflog.Warn(ctx, "Could not read clip project before removing it from state", map[string]any{"project_id": id, "error": err.Error()})
	case project.StorageExpireAt != "":
		expires = project.StorageExpireAt
	}
	resp.Diagnostics.Append(projectKeptWarning(id, expires, "was removed"))
}

// ImportState takes a project id.
func (r *ClipProjectResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}

// readClips sets clips and clip_count: the exportable clips of a COMPLETE
// project, none before that (or when it stalled).
func (r *ClipProjectResource) readClips(ctx context.Context, m *clipProjectModel, p *apitypes.Project) diag.Diagnostics {
	var diags diag.Diagnostics
	if p.Stage != apitypes.StageComplete {
		m.setNoClips()
		return diags
	}
	clips, err := r.data.Client.ListExportableClips(ctx, client.ClipFilter{ProjectID: m.ID.ValueString()})
	if err != nil {
		diags.AddError("Unable to list the project's clips", err.Error())
		return diags
	}
	m.Clips, diags = exportableClipsList(ctx, clips)
	m.ClipCount = types.Int64Value(int64(len(clips)))
	return diags
}

// listClips is readClips recording in private, when the listing succeeded,
// the project it was made for (clip_project_clips.go).
func (r *ClipProjectResource) listClips(ctx context.Context, m *clipProjectModel, p *apitypes.Project, private privateState) diag.Diagnostics {
	diags := r.readClips(ctx, m, p)
	if !diags.HasError() {
		diags.Append(recordClipsListed(ctx, private, p)...)
	}
	return diags
}

// waitForCompletion waits for the project Create holds to conclude. Handing
// that project to the wait makes a timeout before the first poll still name
// its stage (QUEUED) rather than none.
func (r *ClipProjectResource) waitForCompletion(ctx context.Context, known *apitypes.Project) (*apitypes.Project, error) {
	opts := r.waitOptions(ctx, known.ID)
	opts.Known = known
	return r.data.Client.WaitForProject(ctx, known.ID, opts)
}

// waitOptions are the provider's polling settings plus a log line per stage.
func (r *ClipProjectResource) waitOptions(ctx context.Context, id string) client.WaitOptions {
	opts := r.data.Wait
	opts.OnStageChange = func(p *apitypes.Project) {
		fields := map[string]any{"project_id": id, "stage": p.Stage}
		if p.Error != nil {
			fields["error"] = *p.Error
		}
		tflog.Info(ctx, "Clip project stage changed", fields)
	}
	return opts
}

// stalledWarning is Read's answer to a STALLED project, which a create that
// did not wait (wait_for_completion = false) leaves in state untainted: the
// plan shows no change, so without it the stall would go unnoticed. It is a
// warning, not a planned replacement: the service may retry the project and
// move it on, and a new project would cost credits again.
func stalledWarning(p *apitypes.Project) diag.Diagnostic {
	reason := "no reason given"
	if p.Error != nil && *p.Error != "" {
		reason = *p.Error
	}
	stalls := int64(0)
	if p.StallCount != nil {
		stalls = *p.StallCount
	}
	return diag.NewWarningDiagnostic("Clip project stalled",
		fmt.Sprintf("Project %s is STALLED on the service (stall_count %d): %s. The service may retry it; "+
			"to start over with a new project instead, run terraform apply -replace with this resource's address.",
			p.ID, stalls, reason))
}

// waitFailure explains why waiting for a project ended without COMPLETE.
func waitFailure(id string, timeout time.Duration, err error) diag.Diagnostic {
	const tainted = " The project stays in state marked as tainted; the next apply replaces it with a new project."
	var stalled *client.StalledError
	if errors.As(err, &stalled) {
		return diag.NewErrorDiagnostic("Clip project stalled",
			fmt.Sprintf("The service reports: %s.%s", err, tainted))
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return diag.NewErrorDiagnostic("Timed out waiting for clip project",
			fmt.Sprintf("Project %s did not complete within the create timeout (%s): %s.%s", id, timeout, err, tainted))
	}
	return diag.NewErrorDiagnostic("Error waiting for clip project",
		fmt.Sprintf("Waiting for project %s failed: %s.%s", id, err, tainted))
}
