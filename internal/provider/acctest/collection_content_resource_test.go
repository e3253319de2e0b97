package acctest

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/clipperhq/terraform-provider-clipper/internal/client"
)

const contentAddr = "clipper_collection_content.test"

// contentConfig holds two collections and the shared project's clip in the
// one named by in.
func contentConfig(env accEnv, in, clipID string) string {
	return env.providerBlock() + fmt.Sprintf(`
resource "clipper_collection" "a" {
  name = "acc content a"
}

resource "clipper_collection" "b" {
  name = "acc content b"
}

resource "clipper_collection_content" "test" {
  collection_id = clipper_collection.%s.id
  content_id    = %q
}
`, in, clipID)
}

// clipsInCollection are the content ids of a collection's clips, as the
// service lists them; a collection the service lacks has none.
func clipsInCollection(t *testing.T, c *client.Client, collectionID string) map[string]bool {
	t.Helper()
	clips, err := c.ListExportableClips(t.Context(), client.ClipFilter{CollectionID: collectionID})
	if client.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, clip := range clips {
		ids[clip.ID] = true
	}
	return ids
}

func TestAccCollectionContent_lifecycle(t *testing.T) {
	env := testAccSetup(t)
	c := env.apiClient(t)
	_, clips := env.completeProject(t)
	clipID := clips[0].ID
	ids := map[string]string{} // collection address -> id, as last seen in state
	var made []string          // every collection id the test saw
	record := func(s *terraform.State) error {
		for _, addr := range []string{"clipper_collection.a", "clipper_collection.b"} {
			rs, ok := s.RootModule().Resources[addr]
			if !ok {
				return fmt.Errorf("%s not in state", addr)
			}
			if ids[addr] != rs.Primary.ID {
				made = append(made, rs.Primary.ID)
			}
			ids[addr] = rs.Primary.ID
		}
		return nil
	}
	// holdsClip checks that the content is in collection in, by its id in
	// state and on the service, and not in the other one.
	holdsClip := func(in, other string) resource.TestCheckFunc {
		return resource.ComposeTestCheckFunc(record, func(s *terraform.State) error {
			inID, otherID := ids["clipper_collection."+in], ids["clipper_collection."+other]
			if got, want := s.RootModule().Resources[contentAddr].Primary.ID, inID+"/"+clipID; got != want {
				return fmt.Errorf("%s id %q, want %q", contentAddr, got, want)
			}
			if !clipsInCollection(t, c, inID)[clipID] {
				return fmt.Errorf("clip %s is not in collection %s on the service", clipID, inID)
			}
			if clipsInCollection(t, c, otherID)[clipID] {
				return fmt.Errorf("clip %s is still in collection %s on the service", clipID, otherID)
			}
			return nil
		})
	}
	create := func(addrs ...string) []plancheck.PlanCheck {
		var checks []plancheck.PlanCheck
		for _, addr := range addrs {
			checks = append(checks, plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate))
		}
		return checks
	}
	afterRefresh := []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				Config:           contentConfig(env, "a", clipID),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: create(contentAddr), PostApplyPostRefresh: afterRefresh},
				Check:            holdsClip("a", "b"),
			},
			{
				ResourceName:      contentAddr,
				ImportState:       true,
				ImportStateVerify: true,
			},
			{
				ResourceName:  contentAddr,
				ImportState:   true,
				ImportStateId: "col_without_content",
				ExpectError:   errorText("the import id must be {collection_id}/{content_id}"),
			},
			{
				// Another collection: the clip moves, by replacement.
				Config: contentConfig(env, "b", clipID),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(contentAddr, plancheck.ResourceActionReplace),
						plancheck.ExpectResourceAction("clipper_collection.a", plancheck.ResourceActionNoop),
					},
					PostApplyPostRefresh: afterRefresh,
				},
				Check: holdsClip("b", "a"),
			},
			{
				// Taken out of the collection outside Terraform: the refresh
				// drops it from state and the plan adds it again.
				PreConfig: func() {
					if err := c.DeleteCollectionContent(t.Context(), ids["clipper_collection.b"], clipID); err != nil {
						t.Fatalf("removing the clip beside Terraform: %v", err)
					}
				},
				Config:           contentConfig(env, "b", clipID),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: create(contentAddr), PostApplyPostRefresh: afterRefresh},
				Check:            holdsClip("b", "a"),
			},
			{
				// Its collection deleted outside Terraform: both leave the
				// state and come back.
				PreConfig: func() {
					if err := c.DeleteCollection(t.Context(), ids["clipper_collection.b"]); err != nil {
						t.Fatalf("deleting the collection beside Terraform: %v", err)
					}
				},
				Config:           contentConfig(env, "b", clipID),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: create("clipper_collection.b", contentAddr), PostApplyPostRefresh: afterRefresh},
				Check:            holdsClip("b", "a"),
			},
		},
		CheckDestroy: collectionsGone(t, c, &made),
	})
}

func TestAccCollectionContent_invalidContentID(t *testing.T) {
	env := testAccSetup(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{{
			Config:      contentConfig(env, "a", "c01"),
			PlanOnly:    true,
			ExpectError: errorText(`content_id: must be a clip id of the form {projectId}.{curationId}, not "c01"`),
		}},
	})
}
