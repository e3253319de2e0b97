package provider

import (
	"context"
	"errors"
	"fmt"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/provider/validators"
	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
)

// What clipper_post_task and clipper_publish_schedule share: the post they
// send (the body of POST /api/post-tasks, which a schedule extends with
// publishAt), its arguments and how a change to them is planned.

// postResource is what the two resources share beside their arguments: the
// provider's data, and a Read that keeps the state.
type postResource struct {
	data *providerData
}

// Configure receives the provider's client.
func (r *postResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// Read keeps the state: the service has no endpoint that reads a post or a
// schedule. What became of a schedule shows only when Delete cancels it.
func (r *postResource) Read(ctx context.Context, _ resource.ReadRequest, _ *resource.ReadResponse) {
	tflog.Debug(ctx, "Keeping the state: the service has no endpoint that reads posts or publish schedules")
}

// postModel holds the arguments of a post, and the id the service gave it.
type postModel struct {
	ID            types.String `tfsdk:"id"`
	ContentID     types.String `tfsdk:"content_id"`
	PostAccountID types.String `tfsdk:"post_account_id"`
	SubAccountID  types.String `tfsdk:"sub_account_id"`
	Title         types.String `tfsdk:"title"`
	Description   types.String `tfsdk:"description"`
	MediaType     types.String `tfsdk:"media_type"`
	Privacy       types.String `tfsdk:"privacy"`
	// Timeouts bounds the create (and a schedule's delete): see
	// writeTimeoutsAttribute.
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

// postAttributes are the schema attributes of a post; idDesc describes the
// id the service gives it (postId, scheduleId). Every argument replaces the
// resource when it changes, since the API has no update (replacePost).
func postAttributes(idDesc string) map[string]schema.Attribute {
	replace := []planmodifier.String{replacePost(nil)}
	nonEmpty := []validator.String{stringvalidator.LengthAtLeast(1)}
	return map[string]schema.Attribute{
		"id": schema.StringAttribute{
			MarkdownDescription: idDesc,
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"content_id": schema.StringAttribute{
			MarkdownDescription: contentIDDescription,
			Required:            true,
			Validators:          []validator.String{validators.PostContentID()},
			PlanModifiers:       replace,
		},
		"post_account_id": schema.StringAttribute{
			MarkdownDescription: "The connected account to post to (`postAccountId`), such as a `post_account_id` of " +
				"`clipper_social_accounts`. A post to a `TWITTER` account costs 1 credit.",
			Required:      true,
			Validators:    nonEmpty,
			PlanModifiers: replace,
		},
		"sub_account_id": schema.StringAttribute{
			MarkdownDescription: "The account's sub-account (`subAccountId`): its Facebook page, Instagram business " +
				"account or LinkedIn person or organization URN, the account's `sub_account_id` in " +
				"`clipper_social_accounts`. Omit it for an account without one.",
			Optional:      true,
			Validators:    nonEmpty,
			PlanModifiers: replace,
		},
		"title": schema.StringAttribute{
			MarkdownDescription: "Title of the post (`postDetail.title`); not blank. The `title` of `clipper_social_copy` " +
				"is written for the account's platform.",
			Required:      true,
			Validators:    []validator.String{validators.PostTitle()},
			PlanModifiers: replace,
		},
		"description": schema.StringAttribute{
			MarkdownDescription: "Text of the post (`postDetail.custom.description`), hashtags included.",
			Optional:            true,
			PlanModifiers:       replace,
		},
		"media_type": schema.StringAttribute{
			MarkdownDescription: "How the platform shows the clip (`postDetail.mediaType`); the values each platform " +
				"supports are the service's to check. Omitted, the platform's default.",
			Optional:      true,
			Validators:    nonEmpty,
			PlanModifiers: replace,
		},
		"privacy": schema.StringAttribute{
			MarkdownDescription: "`public`, `private` or `unlisted` (`postDetail.custom.privacy`), the privacy of a " +
				"YouTube post. Omitted, the platform's default.",
			Optional:      true,
			Validators:    []validator.String{validators.Privacy()},
			PlanModifiers: replace,
		},
	}
}

// request is the body of POST /api/post-tasks for the post m describes: the
// content id split into projectId and the bare clipId.
func (m *postModel) request() (apitypes.PostTaskRequest, diag.Diagnostics) {
	var diags diag.Diagnostics
	projectID, clipID := splitContentID(m.ContentID, &diags)
	req := apitypes.PostTaskRequest{
		ProjectID:     projectID,
		ClipID:        clipID,
		PostAccountID: m.PostAccountID.ValueString(),
		SubAccountID:  m.SubAccountID.ValueString(),
		PostDetail:    apitypes.PostDetail{Title: m.Title.ValueString(), MediaType: m.MediaType.ValueString()},
	}
	if !m.Description.IsNull() || !m.Privacy.IsNull() {
		req.PostDetail.Custom = &apitypes.PostDetailCustom{Description: m.Description.ValueString(), Privacy: m.Privacy.ValueString()}
	}
	return req, diags
}

// splitContentID splits content_id into the projectId and the bare clipId
// of the social endpoints; a broken rule goes to diags.
func splitContentID(contentID types.String, diags *diag.Diagnostics) (projectID, clipID string) {
	projectID, clipID, err := rules.SplitContentID(contentID.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("content_id"), "Invalid content_id", "content_id: "+err.Error())
	}
	return projectID, clipID
}

// contentIDDescription describes the content_id of the social resources and
// data source.
const contentIDDescription = "The clip: its composite id `{projectId}.{curationId}`, such as " +
	"`clipper_clip_project.<name>.clips[0].id`, which stays known when the project changes in place (or the `id` of " +
	"an item of `clipper_exportable_clips` for a project not managed here). The provider sends its two parts as " +
	"`projectId` and `clipId`."

// logFields names the post in log lines: ids only, never the API key.
func (m *postModel) logFields() map[string]any {
	return map[string]any{"id": m.ID.ValueString(), "content_id": m.ContentID.ValueString(), "post_account_id": m.PostAccountID.ValueString()}
}

// replacePost replaces a post when an argument changes: the API cannot
// change a post or a schedule, only make another. Two plans replace nothing:
// the first after an import (the state holds the id alone, since the service
// has no read endpoint, and the configuration's arguments are recorded as
// they are), and, when same is given, a value written another way that
// same reports to mean the same (a publish time at another offset).
func replacePost(same func(state, plan string) bool) planmodifier.String {
	const desc = "Changing the value replaces the resource, unless it only records an imported id's arguments."
	return stringplanmodifier.RequiresReplaceIf(
		func(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
			if imported(ctx, req.State) {
				return
			}
			if same != nil && known(req.StateValue) && known(req.PlanValue) && same(req.StateValue.ValueString(), req.PlanValue.ValueString()) {
				return
			}
			resp.RequiresReplace = true
		}, desc, desc)
}

// postArguments are the arguments of a post, scheduleArguments those of a
// schedule.
var (
	postArguments     = []string{"content_id", "post_account_id", "sub_account_id", "title", "description", "media_type", "privacy"}
	scheduleArguments = append(slices.Clone(postArguments), "publish_at")
)

// replacedBy names the arguments among names whose planned change replaces
// the post under replacePost's rule, each with its change; a value unknown
// until apply counts, since it may change. same, when given, tells publish
// times that are one instant. None for a create, a destroy, or the first
// plan after an import.
func replacedBy(ctx context.Context, req resource.ModifyPlanRequest, names []string, same func(state, plan string) bool) ([]string, diag.Diagnostics) {
	var diags diag.Diagnostics
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || imported(ctx, req.State) {
		return nil, diags
	}
	var changed []string
	for _, name := range names {
		var prior, planned types.String
		diags.Append(req.State.GetAttribute(ctx, path.Root(name), &prior)...)
		diags.Append(req.Plan.GetAttribute(ctx, path.Root(name), &planned)...)
		switch {
		case diags.HasError():
			return nil, diags
		case planned.Equal(prior):
		case planned.IsUnknown():
			changed = append(changed, fmt.Sprintf("%s (%s -> known after apply)", name, shown(prior)))
		case same != nil && known(prior) && same(prior.ValueString(), planned.ValueString()):
		default:
			changed = append(changed, fmt.Sprintf("%s (%s -> %s)", name, shown(prior), shown(planned)))
		}
	}
	return changed, diags
}

// shown is a value as a plan shows it.
func shown(v types.String) string {
	if v.IsNull() {
		return "null"
	}
	return fmt.Sprintf("%q", v.ValueString())
}

// republishWarning says that the planned replacement of a post (what names
// the resource: "Post <id>", "Schedule <id>, which already fired,") publishes
// its clip again, and what usually makes an argument unknown.
func republishWarning(what string, changed []string) diag.Diagnostic {
	return diag.NewWarningDiagnostic("Replacing this post publishes the clip again",
		fmt.Sprintf("%s will be replaced because of %s: this publishes the clip again, as another post; the earlier "+
			"post stays published, since the service cannot take a post back. If the change is not meant, a content_id "+
			"that is unknown until apply is the usual cause: take it from clipper_clip_project.NAME.clips[N].id, which "+
			"stays known across in-place changes of the project, rather than from data.clipper_exportable_clips, which "+
			"Terraform reads again at apply whenever the project has a pending change.",
			what, strings.Join(changed, ", ")))
}

// imported reports whether state is that of an import: content_id, which a
// created post always has, is null.
func imported(ctx context.Context, state tfsdk.State) bool {
	var contentID types.String
	diags := state.GetAttribute(ctx, path.Root("content_id"), &contentID)
	return !diags.HasError() && contentID.IsNull()
}

// known reports whether v holds a value, neither null nor unknown.
func known(v types.String) bool {
	return !v.IsNull() && !v.IsUnknown()
}

// postFailure explains why the service refused a post (what is "publish" or
// "schedule"). The monthly cap says when posting resumes and where to raise
// it; other refusals carry the service's message, which names the field.
func postFailure(what string, m *postModel, err error) diag.Diagnostic {
	var capped *client.MonthlyCapError
	if errors.As(err, &capped) {
		resumes := "the first day of next month (UTC)"
		if !capped.ResetAt.IsZero() {
			resumes = capped.ResetAt.UTC().Format(time.RFC3339)
		}
		return diag.NewAttributeErrorDiagnostic(path.Root("post_account_id"), "Monthly API cap reached",
			fmt.Sprintf("post_account_id: the service refused to %s clip %s to account %s because the workspace's monthly "+
				"API cap is reached (a post to a TWITTER account costs 1 credit): %s.\n\nAccess resumes at %s; "+
				"raise the cap at %s, or on a self-hosted clipperd with `clipperd serve --monthly-credits N`.",
				what, m.ContentID.ValueString(), m.PostAccountID.ValueString(), err, resumes, capped.UpgradeURL))
	}
	return socialRefusal("Unable to "+what+" clip",
		fmt.Sprintf("could not %s clip %s to account %s: %s", what, m.ContentID.ValueString(), m.PostAccountID.ValueString(), err), err)
}

// socialFields are the body fields of the social endpoints, each with the
// attribute that sets it.
var socialFields = map[string]string{
	"projectId": "content_id", "clipId": "content_id", "postAccountId": "post_account_id", "subAccountId": "sub_account_id",
	"postDetail.title": "title", "postDetail.mediaType": "media_type", "postDetail.custom.description": "description",
	"postDetail.custom.privacy": "privacy", "publishAt": "publish_at", "prompt": "prompt", "forceRegenerate": "force_regenerate",
}

// socialRefusal is the diagnostic of a social request the service refused:
// at the attribute that sets the field its message names first (as in
// "subAccountId: is required for account ..."), else at none.
func socialRefusal(summary, detail string, err error) diag.Diagnostic {
	var refused *client.APIError
	if errors.As(err, &refused) {
		field, _, _ := strings.Cut(refused.ErrorMessage, ":")
		if attr, ok := socialFields[field]; ok {
			return diag.NewAttributeErrorDiagnostic(path.Root(attr), summary, attr+": "+detail)
		}
	}
	return diag.NewErrorDiagnostic(summary, strings.ToUpper(detail[:1])+detail[1:])
}
