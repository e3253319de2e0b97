package acctest

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestAccCollectionExportDataSource(t *testing.T) {
	env := testAccSetup(t)
	_, clips := env.completeProject(t)
	const addr = "data.clipper_collection_export.test"

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				Config: env.providerBlock() + `
data "clipper_collection_export" "missing" {
  collection_id = "col_no_such_collection"
}
`,
				ExpectError: errorText("Collection not found"),
			},
			{
				Config: env.providerBlock() + fmt.Sprintf(`
resource "clipper_collection" "test" {
  name = "acc export"
}

resource "clipper_collection_content" "clip" {
  collection_id = clipper_collection.test.id
  content_id    = %q
}

data "clipper_collection_export" "test" {
  collection_id = clipper_collection_content.clip.collection_id
}
`, clips[0].ID),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("contents"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"content_id":     knownvalue.StringExact(clips[0].ID),
							"uri_for_export": knownvalue.StringExact(clips[0].URIForExport),
						}),
					})),
					statecheck.CompareValuePairs(addr, tfjsonpath.New("id"), "clipper_collection.test", tfjsonpath.New("id"), compare.ValuesSame()),
				},
				Check: checkClipsDownload(t, addr, "contents"),
			},
		},
	})
}
