package acctest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// emptyListsConfig is a project made from the shared video, curation
// skipped, with every list argument empty (lists) or left out.
func emptyListsConfig(env accEnv, lists bool) string {
	empty := func(name string) string {
		if !lists {
			return ""
		}
		return name + " = []"
	}
	return env.providerBlock() + fmt.Sprintf(`
resource "clipper_clip_project" "empty" {
  source_file = %[1]q
  source_hash = filesha256(%[1]q)

  curation = {
    skip_curate = true
    %[2]s
    %[3]s
  }
  render = {
    layout_aspect_ratio = "square"
    %[4]s
    %[5]s
    font = { %[6]s }
  }
  %[7]s
}
`, env.Video, empty("clip_durations"), empty("topic_keywords"), empty("screen_overlays"),
		empty("selected_transitions"), empty("style"), empty("conclusion_actions"))
}

// TestAccClipProject_emptyLists: one rule for empty lists. Every list
// argument of a project accepts [] as "none" (a module passing var.x = []
// applies); the plan after the apply is empty, and changing [] into no list
// (or back) replaces nothing.
func TestAccClipProject_emptyLists(t *testing.T) {
	env := testAccSetup(t)
	const addr = "clipper_clip_project.empty"
	if strings.Count(emptyListsConfig(env, true), "= []") != 6 {
		t.Fatal("the configuration does not hold the six empty lists")
	}
	noReplace := []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				Config: emptyListsConfig(env, true),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				Config: emptyListsConfig(env, false),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             noReplace,
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				Config: emptyListsConfig(env, true),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             noReplace,
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}
