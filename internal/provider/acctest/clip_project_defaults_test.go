package acctest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// clipListCounter sits between the provider and the shared clipperd and
// counts the requests that list a project's clips. A project named by gone
// answers 404, as one deleted out of band would.
type clipListCounter struct {
	URL   string
	lists atomic.Int64
	gone  atomic.Pointer[string]
}

func newClipListCounter(t *testing.T, target string) *clipListCounter {
	t.Helper()
	c := &clipListCounter{}
	c.URL = proxyTo(t, target, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/api/exportable-clips" {
			c.lists.Add(1)
		}
		if gone := c.gone.Load(); gone != nil && r.URL.Path == "/api/clip-projects/"+*gone {
			writeAPIError(w, http.StatusNotFound, "Not Found", "project not found")
			return true
		}
		return false
	})
	return c
}

// TestAccClipProject_defaults creates a project from a link without
// brand_template_id, curation or render: the template the service applied is
// recorded without a diff, before and after import, and refreshing the
// COMPLETE project does not list its clips again. Spelling the defaults out
// (curation = { model = "ClipBasic" }, render = {}) is the same project,
// applied or imported. Deleted out of band, it leaves the state and the plan
// creates it again.
func TestAccClipProject_defaults(t *testing.T) {
	env := testAccSetup(t)
	// The test video over HTTP, as a public MP4 link (clipperd is told to
	// allow loopback imports).
	media := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(env.Video))))
	t.Cleanup(media.Close)
	videoURL := media.URL + "/" + filepath.Base(env.Video)

	counter := newClipListCounter(t, env.URL)
	proxied := env
	proxied.URL = counter.URL
	config := proxied.providerBlock() + fmt.Sprintf(`
resource "clipper_clip_project" "defaults" {
  video_url = %q
}
`, videoURL)
	spelledOut := proxied.providerBlock() + fmt.Sprintf(`
resource "clipper_clip_project" "defaults" {
  video_url = %q
  curation  = { model = "ClipBasic" }
  render    = {}
}
`, videoURL)
	const addr = "clipper_clip_project.defaults"
	var listsAfterCreate int64
	var createdID string

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("brand_template_id")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("stage"), knownvalue.StringExact(string(apitypes.StageComplete))),
					// The org's default template, as the service reports it.
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("brand_template_id"), knownvalue.StringExact("preset-fancy-Simple")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("source_platform"), knownvalue.StringExact(apitypes.PlatformYtdlpLink)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("clip_count"), knownvalue.Int64Func(atLeastOne)),
				},
				Check: func(s *terraform.State) error {
					createdID = s.RootModule().Resources[addr].Primary.ID
					listsAfterCreate = counter.lists.Load()
					if listsAfterCreate == 0 {
						return fmt.Errorf("create did not count the clips")
					}
					return nil
				},
			},
			{
				// Each step refreshes the project several times (before its
				// plan, after apply); none of them lists the clips again.
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(*terraform.State) error {
					if n := counter.lists.Load(); n != listsAfterCreate {
						return fmt.Errorf("refreshing a COMPLETE project listed its clips %d more times", n-listsAfterCreate)
					}
					return nil
				},
			},
			{
				ResourceName:      addr,
				ImportState:       true,
				ImportStateVerify: true,
			},
			{
				// An import block with this configuration, which names no
				// template, plans nothing but the import: the imported
				// brand_template_id causes no diff.
				Config:          config,
				ResourceName:    addr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("brand_template_id"), knownvalue.StringExact("preset-fancy-Simple")),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("video_url"), knownvalue.StringExact(videoURL)),
					},
				},
			},
			{
				// The defaults spelled out plan no change, let alone a replacement.
				Config: spelledOut,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				ResourceName:      addr,
				ImportState:       true,
				ImportStateVerify: true,
			},
			{
				// terraform state rm, import, plan with the defaults spelled
				// out: nothing but the import.
				Config:          spelledOut,
				ResourceName:    addr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("curation").AtMapKey("model"), knownvalue.StringExact(apitypes.ModelClipBasic)),
					},
				},
			},
			{
				// Deleted out of band: Read removes it, the plan creates it.
				PreConfig:          func() { counter.gone.Store(&createdID) },
				Config:             spelledOut,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
				},
			},
		},
	})
}
