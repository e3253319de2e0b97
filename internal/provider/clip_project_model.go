package provider

import (
	"context"
	"fmt"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
)

// clipProjectModel is the Terraform state of clipper_clip_project. Nested
// arguments are kept as types.Object/types.List so that unknown and null
// values survive; clip_project_model_prefs.go converts them to the wire structs.
type clipProjectModel struct {
	// Arguments.
	VideoURL          types.String   `tfsdk:"video_url"`
	SourceFile        types.String   `tfsdk:"source_file"`
	SourceHash        types.String   `tfsdk:"source_hash"`
	Title             types.String   `tfsdk:"title"`
	BrandTemplateID   types.String   `tfsdk:"brand_template_id"`
	SourceLang        types.String   `tfsdk:"source_lang"`
	Visibility        types.String   `tfsdk:"visibility"`
	Curation          types.Object   `tfsdk:"curation"`
	Render            types.Object   `tfsdk:"render"`
	ConclusionActions types.List     `tfsdk:"conclusion_actions"`
	WaitForCompletion types.Bool     `tfsdk:"wait_for_completion"`
	Timeouts          timeouts.Value `tfsdk:"timeouts"`

	// Reported by the service.
	ID                    types.String `tfsdk:"id"`
	ProjectID             types.String `tfsdk:"project_id"`
	UserID                types.String `tfsdk:"user_id"`
	OrgID                 types.String `tfsdk:"org_id"`
	Stage                 types.String `tfsdk:"stage"`
	SourcePlatform        types.String `tfsdk:"source_platform"`
	SourceID              types.String `tfsdk:"source_id"`
	Labels                types.List   `tfsdk:"labels"`
	ProductTier           types.String `tfsdk:"product_tier"`
	StorageSize           types.Int64  `tfsdk:"storage_size"`
	StorageStatus         types.String `tfsdk:"storage_status"`
	StorageExpireAt       types.String `tfsdk:"storage_expire_at"`
	CreatedAt             types.String `tfsdk:"created_at"`
	UpdatedAt             types.String `tfsdk:"updated_at"`
	ClusterJobID          types.String `tfsdk:"cluster_job_id"`
	Cluster               types.String `tfsdk:"cluster"`
	Permissions           types.List   `tfsdk:"permissions"`
	PromptRecommendations types.List   `tfsdk:"prompt_recommendations"`
	SourceURI             types.String `tfsdk:"source_uri"`
	Error                 types.String `tfsdk:"error"`
	StallCount            types.Int64  `tfsdk:"stall_count"`
	WorkerURL             types.String `tfsdk:"worker_url"`
	RefundStatus          types.String `tfsdk:"refund_status"`
	ClipCount             types.Int64  `tfsdk:"clip_count"`
	Clips                 types.List   `tfsdk:"clips"`
}

// conclusionActionModel is an item of conclusion_actions.
type conclusionActionModel struct {
	Type          types.String `tfsdk:"type"`
	URL           types.String `tfsdk:"url"`
	Email         types.String `tfsdk:"email"`
	NotifyFailure types.Bool   `tfsdk:"notify_failure"`
}

var conclusionActionType = objectTypeOf(listElemType(conclusionActionsAttribute().GetType()))

func listElemType(t attr.Type) attr.Type {
	lt, ok := t.(types.ListType)
	if !ok {
		panic(fmt.Sprintf("schema attribute is %T, not a list type", t))
	}
	return lt.ElemType
}

// createRequest builds the create body from the planned arguments. videoURL is
// video_url or, for source_file, the upload id of the uploaded file.
func (m *clipProjectModel) createRequest(ctx context.Context, videoURL string) (apitypes.CreateProjectRequest, diag.Diagnostics) {
	var diags diag.Diagnostics
	req := apitypes.CreateProjectRequest{
		VideoURL:        videoURL,
		BrandTemplateID: m.BrandTemplateID.ValueString(),
	}
	if !m.Title.IsNull() {
		req.UploadedVideoAttr = &apitypes.UploadedVideoAttr{Title: m.Title.ValueString()}
	}
	if !m.SourceLang.IsNull() {
		req.ImportPref = &apitypes.ImportPref{SourceLang: m.SourceLang.ValueString()}
	}
	var err error
	if req.CurationPref, err = curationToAPI(m.Curation); err != nil {
		diags.AddAttributeError(pathCuration, "Invalid curation", err.Error())
	}
	if req.RenderPref, err = renderToAPI(m.Render); err != nil {
		diags.AddAttributeError(pathRender, "Invalid render", err.Error())
	}
	if !m.ConclusionActions.IsNull() && !m.ConclusionActions.IsUnknown() {
		var actions []conclusionActionModel
		diags.Append(m.ConclusionActions.ElementsAs(ctx, &actions, false)...)
		for _, a := range actions {
			req.ConclusionActions = append(req.ConclusionActions, apitypes.ConclusionAction{
				Type:          a.Type.ValueString(),
				URL:           a.URL.ValueString(),
				Email:         a.Email.ValueString(),
				NotifyFailure: a.NotifyFailure.ValueBool(),
			})
		}
	}
	return req, diags
}

// setReported copies every field the service reports into the model, the
// argument visibility included (the service is the truth for it).
func (m *clipProjectModel) setReported(p *apitypes.Project) {
	id := p.ID
	if id == "" {
		id = p.ProjectID
	}
	m.ID = types.StringValue(id)
	m.ProjectID = types.StringValue(p.ProjectID)
	m.UserID = types.StringValue(p.UserID)
	m.OrgID = types.StringValue(p.OrgID)
	m.Stage = types.StringValue(string(p.Stage))
	m.SourcePlatform = types.StringValue(p.SourcePlatform)
	m.SourceID = types.StringValue(p.SourceID)
	m.Labels = stringList(p.Labels)
	m.ProductTier = types.StringValue(p.ProductTier)
	m.StorageSize = types.Int64Value(p.StorageSize)
	m.StorageStatus = types.StringValue(p.StorageStatus)
	m.StorageExpireAt = types.StringValue(p.StorageExpireAt)
	m.CreatedAt = types.StringValue(p.CreatedAt)
	m.UpdatedAt = types.StringValue(p.UpdatedAt)
	m.ClusterJobID = types.StringValue(p.ClusterJobID)
	m.Cluster = types.StringValue(p.Cluster)
	m.Visibility = types.StringValue(p.Visibility)
	m.Permissions = stringList(p.Permissions)
	m.PromptRecommendations = stringList(p.PromptRecommendations)
	m.SourceURI = types.StringPointerValue(p.SourceURI)
	m.Error = types.StringPointerValue(p.Error)
	m.StallCount = types.Int64PointerValue(p.StallCount)
	m.WorkerURL = types.StringPointerValue(p.WorkerURL)
	m.RefundStatus = types.StringPointerValue(p.RefundStatus)
}

// setNoClips records a project without clips yet: not COMPLETE.
func (m *clipProjectModel) setNoClips() {
	m.ClipCount = types.Int64Value(0)
	m.Clips = types.ListValueMust(exportableClipType, nil)
}

// fillUnknown copies into m the values of src for the attributes m holds as
// unknown; known values stay. Update uses it to answer with the planned values
// and fill in only what the plan left to the service.
func fillUnknown(m *clipProjectModel, src clipProjectModel) {
	dst := reflect.ValueOf(m).Elem()
	from := reflect.ValueOf(src)
	for i := range dst.NumField() {
		if v, ok := dst.Field(i).Interface().(attr.Value); ok && v.IsUnknown() {
			dst.Field(i).Set(from.Field(i))
		}
	}
}

// readArguments refreshes the arguments from a project the service returned.
// With importing false the rules of reconcile apply; with importing true the
// state holds nothing but the id, and whatever the service reports is taken.
func (m *clipProjectModel) readArguments(ctx context.Context, p *apitypes.Project, importing bool) diag.Diagnostics {
	var diags diag.Diagnostics
	server := clipProjectModel{
		Title:             types.StringNull(),
		BrandTemplateID:   types.StringPointerValue(p.BrandTemplateID),
		SourceLang:        types.StringNull(),
		ConclusionActions: types.ListNull(conclusionActionType),
	}
	if p.UploadedVideoAttr != nil && p.UploadedVideoAttr.Title != "" {
		server.Title = types.StringValue(p.UploadedVideoAttr.Title)
	}
	if p.ImportPref != nil && p.ImportPref.SourceLang != "" {
		server.SourceLang = types.StringValue(p.ImportPref.SourceLang)
	}
	var err error
	if server.Curation, err = curationFromAPI(withoutEchoedDefaults(p.CurationPref)); err != nil {
		diags.AddAttributeError(pathCuration, "Unexpected curationPref from the service", err.Error())
	}
	if server.Render, err = renderFromAPI(p.RenderPref); err != nil {
		diags.AddAttributeError(pathRender, "Unexpected renderPref from the service", err.Error())
	}
	if len(p.ConclusionActions) > 0 {
		actions := make([]conclusionActionModel, 0, len(p.ConclusionActions))
		for _, a := range p.ConclusionActions {
			actions = append(actions, conclusionActionModel{
				Type:          types.StringValue(a.Type),
				URL:           optionalStringValue(a.URL),
				Email:         optionalStringValue(a.Email),
				NotifyFailure: types.BoolValue(a.NotifyFailure),
			})
		}
		var d diag.Diagnostics
		server.ConclusionActions, d = types.ListValueFrom(ctx, conclusionActionType, actions)
		diags.Append(d...)
	}
	if diags.HasError() {
		return diags
	}

	if importing {
		// Preferences the service does not report are the defaults-only
		// objects a create without them stores (see samePrefs).
		if server.Curation.IsNull() {
			server.Curation = emptyCuration()
		}
		if server.Render.IsNull() {
			server.Render = emptyRender()
		}
		m.Title, m.BrandTemplateID, m.SourceLang = server.Title, server.BrandTemplateID, server.SourceLang
		m.Curation, m.Render, m.ConclusionActions = server.Curation, server.Render, server.ConclusionActions
		m.VideoURL = importedVideoURL(p)
		return diags
	}
	m.Title = reconcileString(ctx, m.Title, server.Title)
	m.BrandTemplateID = reconcileString(ctx, m.BrandTemplateID, server.BrandTemplateID)
	m.SourceLang = reconcileString(ctx, m.SourceLang, server.SourceLang)
	m.Curation = reconcileObject(ctx, m.Curation, server.Curation)
	m.Render = reconcileObject(ctx, m.Render, server.Render)
	m.ConclusionActions = reconcileList(ctx, m.ConclusionActions, server.ConclusionActions)
	return diags
}

// withoutEchoedDefaults is the curationPref a service answered without the
// skipCurate false it may fill in: false is what leaving it out asks for, and
// kept in state it would show in no diff yet make every plan of an imported
// project an update (see curationWire, which compares requests the same way).
func withoutEchoedDefaults(c *apitypes.CurationPref) *apitypes.CurationPref {
	if c == nil || c.SkipCurate == nil || *c.SkipCurate {
		return c
	}
	out := *c
	out.SkipCurate = nil
	return &out
}

// importedVideoURL recovers video_url for an imported project: the source
// address when the video came from a link, the upload id (source_id) when it
// was uploaded, since video_url takes an upload id too. Import cannot know the
// path of an uploaded file, so a configuration generated from the import
// (`terraform plan -generate-config-out`) names the upload it came from.
func importedVideoURL(p *apitypes.Project) types.String {
	if p.SourcePlatform == apitypes.PlatformUploaded {
		if p.SourceID == "" {
			return types.StringNull()
		}
		return types.StringValue(p.SourceID)
	}
	if p.SourceURI == nil || rules.HTTPURL(*p.SourceURI) != nil {
		return types.StringNull()
	}
	return types.StringValue(*p.SourceURI)
}
