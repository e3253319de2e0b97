package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

func TestExportableClipFromAPI(t *testing.T) {
	c := apitypes.ExportableClip{
		ID: "p1.c1", ProjectID: "p1", CurationID: "c1", DurationMs: 12500, StorageUsed: 2048,
		TimeRanges: [][2]int64{{1000, 6000}, {9000, 16500}}, Keywords: []string{"a", "b"},
		URIForExport: "http://127.0.0.1/clip.mp4",
		RenderPref: &apitypes.RenderPref{
			LayoutAspectRatio: apitypes.AspectPortrait,
			QuickstartConfig:  &apitypes.QuickstartConfig{EnableRemoveFillerWords: ptr(true)},
			HighlightColor:    &apitypes.HighlightColor{Primary: "#FFCC00"},
		},
	}
	m, err := exportableClipFromAPI(c)
	if err != nil {
		t.Fatal(err)
	}
	if m.ID.ValueString() != "p1.c1" || m.CurationID.ValueString() != "c1" || m.DurationMs.ValueInt64() != 12500 {
		t.Fatalf("scalar fields: %+v", m)
	}
	if got := m.TimeRanges.String(); got != "[[1000,6000],[9000,16500]]" {
		t.Fatalf("time_ranges = %s", got)
	}
	if len(m.Keywords.Elements()) != 2 {
		t.Fatalf("keywords = %s", m.Keywords)
	}
	// render_pref uses the names of the resource's render argument.
	attrs := m.RenderPref.Attributes()
	if got := attrs["layout_aspect_ratio"]; !got.Equal(types.StringValue("portrait")) {
		t.Errorf("render_pref.layout_aspect_ratio = %s", got)
	}
	if got := attrs["remove_filler_words"]; !got.Equal(types.BoolValue(true)) {
		t.Errorf("render_pref.remove_filler_words = %s", got)
	}
	if hc, ok := m.RenderPref.Attributes()["highlight_color"].(types.Object); !ok || !hc.Attributes()["primary"].Equal(types.StringValue("#FFCC00")) {
		t.Errorf("render_pref.highlight_color = %s", attrs["highlight_color"])
	}

	empty, err := exportableClipFromAPI(apitypes.ExportableClip{})
	if err != nil {
		t.Fatal(err)
	}
	if empty.TimeRanges.IsNull() || empty.Keywords.IsNull() {
		t.Fatal("absent arrays should be empty lists, not null")
	}
	if !empty.RenderPref.IsNull() {
		t.Fatalf("absent renderPref should be null, got %s", empty.RenderPref)
	}
}
