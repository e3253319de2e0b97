package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

func ptr[T any](v T) *T { return &v }

// configuredModel is a model as a plan holds it: every argument set.
func configuredModel(t *testing.T) clipProjectModel {
	t.Helper()
	ctx := context.Background()
	curation, err := curationFromAPI(&apitypes.CurationPref{
		Model:         apitypes.ModelClipBasic,
		Range:         &apitypes.Range{StartSec: ptr(0.0), EndSec: ptr(120.0)},
		ClipDurations: [][2]float64{{10, 30}, {30, 60}},
		TopicKeywords: []string{"terraform"},
		Genre:         "Podcast",
		SkipCurate:    ptr(true), // false imports as null: it is what leaving it out asks for
	})
	if err != nil {
		t.Fatal(err)
	}
	render, err := renderFromAPI(&apitypes.RenderPref{
		LayoutAspectRatio:  apitypes.AspectPortrait,
		QuickstartConfig:   &apitypes.QuickstartConfig{EnableRemoveFillerWords: ptr(true)},
		EnableCaption:      ptr(true),
		EnableEmoji:        ptr(false),
		FitLayoutCropRatio: "9:16",
		HighlightColor:     &apitypes.HighlightColor{Primary: "#FFCC00"},
		Font: &apitypes.Font{Family: "Inter", NumericalSize: ptr(48.0),
			Stroke: &apitypes.FontStroke{Enabled: ptr(true), Color: "#000000", Width: ptr(2.0)}},
		ScreenOverlays: []apitypes.ScreenOverlay{{Style: "corner",
			Rect: &apitypes.Rect{XPct: ptr(5.0), YPct: ptr(5.0), WPct: ptr(20.0), HPct: ptr(10.0)}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	actions, diags := types.ListValueFrom(ctx, conclusionActionType, []conclusionActionModel{
		{Type: types.StringValue("WEBHOOK"), URL: types.StringValue("https://example.com/hook"),
			Email: types.StringNull(), NotifyFailure: types.BoolValue(true)},
		{Type: types.StringValue("EMAIL"), URL: types.StringNull(),
			Email: types.StringValue("ops@example.com"), NotifyFailure: types.BoolValue(false)},
	})
	if diags.HasError() {
		t.Fatal(diagText(diags))
	}
	return clipProjectModel{
		SourceFile:        types.StringValue("/videos/talk.mp4"),
		Title:             types.StringValue("My talk"),
		BrandTemplateID:   types.StringValue("preset-fancy-Karaoke"),
		SourceLang:        types.StringValue("en"),
		Visibility:        types.StringValue("DEFAULT"),
		Curation:          curation,
		Render:            render,
		ConclusionActions: actions,
		WaitForCompletion: types.BoolValue(true),
	}
}

// echo builds the project the service answers for req, as clipperd does.
func echo(req apitypes.CreateProjectRequest) *apitypes.Project {
	return &apitypes.Project{
		ID: "p1", ProjectID: "p1", UserID: "u1", OrgID: "o1", Stage: apitypes.StageComplete,
		SourcePlatform: apitypes.PlatformUploaded, SourceID: "upl_1", Visibility: "DEFAULT",
		CreatedAt: "2025-01-01T00:00:00Z", UpdatedAt: "2025-01-01T00:05:00Z", StorageExpireAt: "2025-01-31T00:00:00Z",
		Model:           ptr(apitypes.ModelClipBasic),
		BrandTemplateID: ptr(req.BrandTemplateID), UploadedVideoAttr: req.UploadedVideoAttr,
		CurationPref: req.CurationPref, RenderPref: req.RenderPref, ImportPref: req.ImportPref,
		ConclusionActions: req.ConclusionActions,
	}
}

func assertArgumentsEqual(t *testing.T, want, got clipProjectModel) {
	t.Helper()
	pairs := map[string][2]attr.Value{
		"title":              {want.Title, got.Title},
		"brand_template_id":  {want.BrandTemplateID, got.BrandTemplateID},
		"source_lang":        {want.SourceLang, got.SourceLang},
		"curation":           {want.Curation, got.Curation},
		"render":             {want.Render, got.Render},
		"conclusion_actions": {want.ConclusionActions, got.ConclusionActions},
	}
	for name, p := range pairs {
		if !p[0].Equal(p[1]) {
			t.Errorf("%s differs:\nwant %s\n got %s", name, p[0], p[1])
		}
	}
}

func TestCreateRequestCarriesEveryArgument(t *testing.T) {
	m := configuredModel(t)
	req, diags := m.createRequest(context.Background(), "upl_1")
	if diags.HasError() {
		t.Fatal(diagText(diags))
	}
	if req.VideoURL != "upl_1" || req.BrandTemplateID != "preset-fancy-Karaoke" ||
		req.UploadedVideoAttr == nil || req.UploadedVideoAttr.Title != "My talk" ||
		req.ImportPref == nil || req.ImportPref.SourceLang != "en" {
		t.Fatalf("top-level fields not carried: %+v", req)
	}
	if req.CurationPref == nil || len(req.CurationPref.ClipDurations) != 2 || req.CurationPref.Range == nil ||
		*req.CurationPref.Range.EndSec != 120 {
		t.Fatalf("curationPref not carried: %+v", req.CurationPref)
	}
	if req.RenderPref == nil || req.RenderPref.QuickstartConfig == nil || !*req.RenderPref.QuickstartConfig.EnableRemoveFillerWords {
		t.Fatalf("renderPref not carried: %+v", req.RenderPref)
	}
	if len(req.ConclusionActions) != 2 || !req.ConclusionActions[0].NotifyFailure || req.ConclusionActions[1].Email != "ops@example.com" {
		t.Fatalf("conclusionActions not carried: %+v", req.ConclusionActions)
	}
}

func TestImportReproducesConfiguration(t *testing.T) {
	ctx := context.Background()
	want := configuredModel(t)
	req, diags := want.createRequest(ctx, "upl_1")
	if diags.HasError() {
		t.Fatal(diagText(diags))
	}
	imported := clipProjectModel{ID: types.StringValue("p1")}
	p := echo(req)
	imported.setReported(p)
	if diags := imported.readArguments(ctx, p, true); diags.HasError() {
		t.Fatal(diagText(diags))
	}
	assertArgumentsEqual(t, want, imported)
	// The project's upload, which video_url can name in place of source_file.
	if imported.VideoURL.ValueString() != p.SourceID {
		t.Errorf("video_url of an uploaded project = %s, want its upload id %q", imported.VideoURL, p.SourceID)
	}
}

func TestReadKeepsConfigurationWithoutDiff(t *testing.T) {
	ctx := context.Background()
	want := configuredModel(t)
	req, _ := want.createRequest(ctx, "upl_1")
	state := want
	p := echo(req)
	state.setReported(p)
	if diags := state.readArguments(ctx, p, false); diags.HasError() {
		t.Fatal(diagText(diags))
	}
	assertArgumentsEqual(t, want, state)
}

func TestReadDoesNotWriteServerDefaultsIntoNullArguments(t *testing.T) {
	ctx := context.Background()
	curation, _ := curationFromAPI(&apitypes.CurationPref{Model: apitypes.ModelClipBasic, ClipDurations: [][2]float64{{10, 30}}})
	state := clipProjectModel{
		Title: types.StringNull(), BrandTemplateID: types.StringNull(), SourceLang: types.StringNull(),
		Curation: curation, Render: types.ObjectNull(renderType.AttrTypes),
		ConclusionActions: types.ListNull(conclusionActionType),
	}
	before := state
	// The service fills in defaults the configuration never set.
	p := &apitypes.Project{
		BrandTemplateID:   ptr("preset-fancy-Simple"),
		UploadedVideoAttr: &apitypes.UploadedVideoAttr{Title: "talk.mp4"},
		ImportPref:        &apitypes.ImportPref{SourceLang: "auto"},
		CurationPref:      &apitypes.CurationPref{Model: apitypes.ModelClipBasic, ClipDurations: [][2]float64{{10, 30}}, Genre: "Auto"},
		RenderPref:        &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectPortrait},
	}
	if diags := state.readArguments(ctx, p, false); diags.HasError() {
		t.Fatal(diagText(diags))
	}
	assertArgumentsEqual(t, before, state)
}

func TestReadKeepsArgumentsTheServiceDoesNotEcho(t *testing.T) {
	ctx := context.Background()
	want := configuredModel(t)
	state := want
	// A service that reports none of the arguments back.
	if diags := state.readArguments(ctx, &apitypes.Project{}, false); diags.HasError() {
		t.Fatal(diagText(diags))
	}
	assertArgumentsEqual(t, want, state)
}

func TestReadSeesDrift(t *testing.T) {
	ctx := context.Background()
	state := configuredModel(t)
	req, _ := state.createRequest(ctx, "upl_1")
	req.UploadedVideoAttr.Title = "Renamed"
	req.RenderPref.LayoutAspectRatio = apitypes.AspectSquare
	if diags := state.readArguments(ctx, echo(req), false); diags.HasError() {
		t.Fatal(diagText(diags))
	}
	if state.Title.ValueString() != "Renamed" {
		t.Errorf("title = %s, want the service's Renamed", state.Title)
	}
	if v, _ := state.Render.Attributes()["layout_aspect_ratio"].(types.String); v.ValueString() != apitypes.AspectSquare {
		t.Errorf("render.layout_aspect_ratio = %s, want square", v)
	}
}

func TestSetReportedNullsAndLists(t *testing.T) {
	var m clipProjectModel
	m.setReported(&apitypes.Project{ID: "p1", ProjectID: "p1", StallCount: ptr(int64(2)), Error: ptr("probe failed")})
	if m.Labels.IsNull() || len(m.Labels.Elements()) != 0 {
		t.Errorf("labels = %s, want an empty list", m.Labels)
	}
	if !m.SourceURI.IsNull() || !m.WorkerURL.IsNull() || !m.RefundStatus.IsNull() {
		t.Errorf("absent nullable fields should be null: %s %s %s", m.SourceURI, m.WorkerURL, m.RefundStatus)
	}
	if m.StallCount.ValueInt64() != 2 || m.Error.ValueString() != "probe failed" {
		t.Errorf("stall_count/error = %s/%s", m.StallCount, m.Error)
	}
	// id falls back to projectId when a service leaves id empty.
	m.setReported(&apitypes.Project{ProjectID: "p2"})
	if m.ID.ValueString() != "p2" {
		t.Errorf("id = %s, want p2", m.ID)
	}
}

func TestImportedVideoURL(t *testing.T) {
	link := &apitypes.Project{SourcePlatform: apitypes.PlatformYtdlpLink, SourceURI: ptr("https://example.com/talk.mp4")}
	if got := importedVideoURL(link); got.ValueString() != "https://example.com/talk.mp4" {
		t.Errorf("link project video_url = %s", got)
	}
	// An uploaded project names its upload: video_url takes an upload id.
	upload := &apitypes.Project{SourcePlatform: apitypes.PlatformUploaded, SourceID: "upl_7", SourceURI: ptr("https://storage.example.com/x")}
	if got := importedVideoURL(upload); got.ValueString() != "upl_7" {
		t.Errorf("uploaded project video_url = %s, want its upload id upl_7", got)
	}
}

// TestImportStoresDefaultsOnlyPreferences: a project created without
// curation or render imports them as the defaults-only objects a create
// without them stores, so that no spelling of "nothing" plans a replacement.
func TestImportStoresDefaultsOnlyPreferences(t *testing.T) {
	ctx := context.Background()
	var m clipProjectModel
	p := &apitypes.Project{CurationPref: &apitypes.CurationPref{Model: apitypes.ModelClipBasic}}
	if diags := m.readArguments(ctx, p, true); diags.HasError() {
		t.Fatal(diagText(diags))
	}
	if !m.Curation.Equal(emptyCuration()) || !m.Render.Equal(emptyRender()) {
		t.Fatalf("curation = %s, render = %s; want the defaults-only objects", m.Curation, m.Render)
	}
	p.CurationPref.Genre = "Podcast"
	if diags := m.readArguments(ctx, p, true); diags.HasError() {
		t.Fatal(diagText(diags))
	}
	if genre, _ := m.Curation.Attributes()["genre"].(types.String); genre.ValueString() != "Podcast" {
		t.Fatalf("curation = %s: the genre must be imported", m.Curation)
	}
}
