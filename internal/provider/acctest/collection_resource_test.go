package acctest

import (
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
)

const collectionAddr = "clipper_collection.test"

func collectionConfig(env accEnv, name string) string {
	return env.providerBlock() + fmt.Sprintf(`
resource "clipper_collection" "test" {
  name = %q
}
`, name)
}

// serviceCollections maps the id of each of the account's collections to
// its name, as the service lists them.
func serviceCollections(t *testing.T, c *client.Client) map[string]string {
	t.Helper()
	list, err := c.ListCollections(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	names := make(map[string]string, len(list))
	for _, col := range list {
		names[col.CollectionID] = col.CollectionName
	}
	return names
}

// collectionsGone checks that none of the collections *ids is left on the
// service.
func collectionsGone(t *testing.T, c *client.Client, ids *[]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		listed := serviceCollections(t, c)
		for _, id := range *ids {
			if _, ok := listed[id]; ok {
				return fmt.Errorf("collection %s is still on the service after destroy", id)
			}
		}
		return nil
	}
}

// recordID copies the id of addr in state to *id.
func recordID(addr string, id *string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s not in state", addr)
		}
		*id = rs.Primary.ID
		return nil
	}
}

func TestAccCollection_lifecycle(t *testing.T) {
	env := testAccSetup(t)
	c := env.apiClient(t)
	var ids []string // every collection the test made, in order
	var current string
	newID := statecheck.CompareValue(compare.ValuesDiffer())
	onService := func(name string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			ids = append(ids, current)
			if got, ok := serviceCollections(t, c)[current]; !ok || got != name {
				return fmt.Errorf("collection %s on the service: listed %t, name %q; want %q", current, ok, got, name)
			}
			return nil
		}
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				Config: collectionConfig(env, "acc reel"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(collectionAddr, plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(collectionAddr, tfjsonpath.New("name"), knownvalue.StringExact("acc reel")),
					statecheck.ExpectKnownValue(collectionAddr, tfjsonpath.New("id"), knownvalue.StringRegexp(regexp.MustCompile(`.`))),
					newID.AddStateValue(collectionAddr, tfjsonpath.New("id")),
				},
				Check: resource.ComposeTestCheckFunc(recordID(collectionAddr, &current), onService("acc reel")),
			},
			{
				ResourceName:      collectionAddr,
				ImportState:       true,
				ImportStateVerify: true,
			},
			{
				// The service cannot rename: a new name is a new collection.
				Config: collectionConfig(env, "acc reel, renamed"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(collectionAddr, plancheck.ResourceActionReplace)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(collectionAddr, tfjsonpath.New("name"), knownvalue.StringExact("acc reel, renamed")),
					newID.AddStateValue(collectionAddr, tfjsonpath.New("id")),
				},
				Check: resource.ComposeTestCheckFunc(
					func(*terraform.State) error {
						if _, ok := serviceCollections(t, c)[current]; ok {
							return fmt.Errorf("the replaced collection %s is still on the service", current)
						}
						return nil
					},
					recordID(collectionAddr, &current), onService("acc reel, renamed")),
			},
			{
				// Deleted outside Terraform: the refresh drops it from state
				// (with a warning) and the plan creates it again.
				PreConfig: func() {
					if err := c.DeleteCollection(t.Context(), current); err != nil {
						t.Fatalf("deleting %s beside Terraform: %v", current, err)
					}
				},
				Config: collectionConfig(env, "acc reel, renamed"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(collectionAddr, plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{newID.AddStateValue(collectionAddr, tfjsonpath.New("id"))},
				Check:             resource.ComposeTestCheckFunc(recordID(collectionAddr, &current), onService("acc reel, renamed")),
			},
		},
		CheckDestroy: collectionsGone(t, c, &ids),
	})
}

// The name rule of clipperd, checked at plan time.
func TestAccCollection_invalidName(t *testing.T) {
	env := testAccSetup(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				Config:      collectionConfig(env, "  "),
				PlanOnly:    true,
				ExpectError: errorText("name: is required and must not be blank"),
			},
			{
				Config:      collectionConfig(env, strings.Repeat("é", 201)),
				PlanOnly:    true,
				ExpectError: errorText("name: must be at most 200 characters, not 201"),
			},
		},
	})
}

// A clipperd of its own, allowing one collection: the second create answers
// 402 QuotaExceed and the error says what to do.
func TestAccCollection_quotaExceeded(t *testing.T) {
	testAccSetup(t)
	srv, err := startClipperd(t.Context(), filepath.Join(t.TempDir(), "data"), quota.Limits{MaxCollections: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("closing clipperd: %v", err)
		}
	})
	env := accEnv{URL: srv.URL()}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{{
			Config: env.providerBlock() + `
resource "clipper_collection" "fits" {
  name = "fits"
}

resource "clipper_collection" "one_too_many" {
  name       = "one too many"
  depends_on = [clipper_collection.fits]
}
`,
			ExpectError: regexp.MustCompile(`(?s)Collection quota used up.*"one\s+too\s+many".*QuotaExceed.*delete\s+collections\s+you\s+no\s+longer` +
				`.*clipperd\s+serve\s+--max-collections`),
		}},
		CheckDestroy: func(*terraform.State) error {
			if left := serviceCollections(t, env.apiClient(t)); len(left) != 0 {
				return fmt.Errorf("collections left after destroy: %v", left)
			}
			return nil
		},
	})
}

// TestAccCollection_timeouts: a change of timeouts is made in place, and
// the destroy rides out an outage (503s, more than one call's attempts)
// until timeouts.delete: the collection is gone from the service at the end.
func TestAccCollection_timeouts(t *testing.T) {
	env := testAccSetup(t)
	c := env.apiClient(t)
	const outage = 6 // answers of 503: one more than a call's attempts
	var mu sync.Mutex
	refused := 0
	proxied := env
	proxied.URL = proxyTo(t, env.URL, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodDelete || !strings.HasPrefix(r.URL.Path, "/api/collections/") {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		if refused >= outage {
			return false
		}
		refused++
		writeAPIError(w, http.StatusServiceUnavailable, "Service Unavailable", "down for maintenance")
		return true
	})
	config := func(timeouts string) string {
		return proxied.providerBlock() + fmt.Sprintf(`
resource "clipper_collection" "test" {
  name     = "acc outage"
  timeouts = { %s }
}
`, timeouts)
	}
	var id string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				Config: config(`create = "2m"`),
				Check:  recordID(collectionAddr, &id),
			},
			{
				Config: config(`create = "2m", delete = "10m"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(collectionAddr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(collectionAddr, tfjsonpath.New("timeouts").AtMapKey("delete"), knownvalue.StringExact("10m")),
				},
			},
			{
				ResourceName:            collectionAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts"}, // configuration only: the service does not know them
			},
		},
		CheckDestroy: func(s *terraform.State) error {
			mu.Lock()
			n := refused
			mu.Unlock()
			if n != outage {
				return fmt.Errorf("the destroy met %d of the outage's %d refusals", n, outage)
			}
			return collectionsGone(t, c, &[]string{id})(s)
		},
	})
}
