package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

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

func TestAccExportableClipsDataSource_filters(t *testing.T) {
	env := testAccSetup(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				Config: env.providerBlock() + `
data "clipper_exportable_clips" "both" {
  project_id    = "p1"
  collection_id = "c1"
}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Exactly\s+one\s+of\s+these\s+attributes\s+must\s+be\s+configured`),
			},
			{
				// A project nobody has: the service answers 404, not an empty list.
				Config: env.providerBlock() + `
data "clipper_exportable_clips" "missing" {
  project_id = "no-such-project"
}
`,
				ExpectError: regexp.MustCompile(`(?s)Unable to list exportable clips`),
			},
		},
	})
}

// A collection's clips, listed by collection_id: the shared project's clips
// go into a collection beside Terraform, and the data source lists them in
// the order they were added.
func TestAccExportableClipsDataSource_byCollection(t *testing.T) {
	env := testAccSetup(t)
	ctx := t.Context()
	c := env.apiClient(t)
	projectID, clips := env.completeProject(t)
	coll, err := c.CreateCollection(ctx, "acc highlights")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.DeleteCollection(context.Background(), coll.CollectionID) })
	for _, clip := range clips {
		if _, err := c.AddCollectionContent(ctx, coll.CollectionID, clip.ID); err != nil {
			t.Fatal(err)
		}
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{{
			Config: env.providerBlock() + fmt.Sprintf(`
data "clipper_exportable_clips" "coll" {
  collection_id = %q
}
`, coll.CollectionID),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.clipper_exportable_clips.coll", tfjsonpath.New("clips"), knownvalue.ListSizeExact(len(clips))),
				statecheck.ExpectKnownValue("data.clipper_exportable_clips.coll", tfjsonpath.New("clips").AtSliceIndex(0).AtMapKey("id"), knownvalue.StringExact(clips[0].ID)),
				statecheck.ExpectKnownValue("data.clipper_exportable_clips.coll", tfjsonpath.New("clips").AtSliceIndex(0).AtMapKey("project_id"), knownvalue.StringExact(projectID)),
				statecheck.ExpectKnownValue("data.clipper_exportable_clips.coll", tfjsonpath.New("clips").AtSliceIndex(0).AtMapKey("render_pref").AtMapKey("layout_aspect_ratio"), knownvalue.StringExact("square")),
				// The clip's copy, as the service made it (from the transcript when it has one).
				statecheck.ExpectKnownValue("data.clipper_exportable_clips.coll", tfjsonpath.New("clips").AtSliceIndex(0).AtMapKey("text"), knownvalue.StringExact(clips[0].Text)),
				statecheck.ExpectKnownValue("data.clipper_exportable_clips.coll", tfjsonpath.New("clips").AtSliceIndex(0).AtMapKey("title"), knownvalue.StringExact(clips[0].Title)),
				statecheck.ExpectKnownValue("data.clipper_exportable_clips.coll", tfjsonpath.New("clips").AtSliceIndex(0).AtMapKey("description"), knownvalue.StringExact(clips[0].Description)),
				statecheck.ExpectKnownValue("data.clipper_exportable_clips.coll", tfjsonpath.New("clips").AtSliceIndex(0).AtMapKey("hashtags"), knownvalue.StringExact(clips[0].Hashtags)),
				statecheck.ExpectKnownValue("data.clipper_exportable_clips.coll", tfjsonpath.New("clips").AtSliceIndex(0).AtMapKey("keywords"), knownvalue.ListSizeExact(len(clips[0].Keywords))),
			},
		}},
	})
}
