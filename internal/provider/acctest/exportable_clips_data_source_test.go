package acctest

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

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
