package acctest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// Two collections, the shared clip in one of them: all of the account's
// collections list both (beside those of tests running at the same time),
// the ones holding the clip list the first and not the second.
func TestAccCollectionsDataSource(t *testing.T) {
	env := testAccSetup(t)
	_, clips := env.completeProject(t)
	clipID := clips[0].ID
	config := env.providerBlock() + fmt.Sprintf(`
resource "clipper_collection" "holding" {
  name = "acc list holding"
}

resource "clipper_collection" "other" {
  name = "acc list other"
}

resource "clipper_collection_content" "clip" {
  collection_id = clipper_collection.holding.id
  content_id    = %q
}

data "clipper_collections" "all" {
  depends_on = [clipper_collection.other, clipper_collection_content.clip]
}

data "clipper_collections" "holding_clip" {
  content_id = clipper_collection_content.clip.content_id
}
`, clipID)

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				Config: env.providerBlock() + `
data "clipper_collections" "bad" {
  content_id = "c01"
}
`,
				PlanOnly:    true,
				ExpectError: errorText(`content_id: must be a clip id of the form {projectId}.{curationId}, not "c01"`),
			},
			{
				Config: config,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("data.clipper_collections.all", "id", "mine"),
					resource.TestCheckResourceAttr("data.clipper_collections.holding_clip", "id", "mine/"+clipID),
					listsCollections("data.clipper_collections.all", []string{"clipper_collection.holding", "clipper_collection.other"}, nil),
					listsCollections("data.clipper_collections.holding_clip", []string{"clipper_collection.holding"}, []string{"clipper_collection.other"}),
					resource.TestCheckTypeSetElemNestedAttrs("data.clipper_collections.all", "collections.*", map[string]string{"name": "acc list other"}),
				),
			},
		},
	})
}

// listsCollections checks that the collections data source addr lists the
// collections of the resources in and none of those of out.
func listsCollections(addr string, in, out []string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		listed, err := listedValues(s, addr, "collections", "id")
		if err != nil {
			return err
		}
		for _, want := range []struct {
			addrs  []string
			listed bool
		}{{in, true}, {out, false}} {
			for _, a := range want.addrs {
				rs, ok := s.RootModule().Resources[a]
				if !ok {
					return fmt.Errorf("%s not in state", a)
				}
				if slices.Contains(listed, rs.Primary.ID) != want.listed {
					return fmt.Errorf("%s lists %v: %s (%s) listed %t, want %t", addr, listed, a, rs.Primary.ID, !want.listed, want.listed)
				}
			}
		}
		return nil
	}
}
