package acctest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

func TestAccBrandTemplatesDataSource(t *testing.T) {
	env := testAccSetup(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				Config: env.providerBlock() + `
data "clipper_brand_templates" "all" {}

data "clipper_brand_templates" "presets" {
  type = "preset"
}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.clipper_brand_templates.presets", tfjsonpath.New("templates"),
						knownvalue.ListSizeExact(len(apitypes.PresetTemplateIDs))),
					statecheck.ExpectKnownValue("data.clipper_brand_templates.presets", tfjsonpath.New("id"), knownvalue.StringExact("mine/preset")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkPresetsListed("data.clipper_brand_templates.all"),
					checkPresetsListed("data.clipper_brand_templates.presets"),
					resource.TestCheckTypeSetElemNestedAttrs("data.clipper_brand_templates.all", "templates.*",
						map[string]string{"template_id": "preset-fancy-Simple", "type": "preset", "is_default": "true"}),
				),
			},
		},
	})
}

// checkPresetsListed checks that every preset template id of the spec is listed.
func checkPresetsListed(addr string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		ids, err := listedValues(s, addr, "templates", "template_id")
		if err != nil {
			return err
		}
		for _, want := range apitypes.PresetTemplateIDs {
			if !slices.Contains(ids, want) {
				return fmt.Errorf("%s lacks preset %s (has %v)", addr, want, ids)
			}
		}
		return nil
	}
}

// TestAccBrandTemplatesDataSource_typeValidated: a type the service has no
// templates of is refused at plan time instead of silently listing nothing.
func TestAccBrandTemplatesDataSource_typeValidated(t *testing.T) {
	env := testAccSetup(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				Config: env.providerBlock() + `
data "clipper_brand_templates" "bogus" {
  type = "bogus"
}
`,
				ExpectError: regexp.MustCompile(`(?s)Invalid Attribute Value Match.*type.*must be one of.*"preset".*"custom"`),
			},
		},
	})
}

// TestAccDataSources_readTimeout: a service that accepts the connection but
// never answers fails a data source's read at its timeouts.read, with an
// error that names the argument.
func TestAccDataSources_readTimeout(t *testing.T) {
	testAccSetup(t)
	hung := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	t.Cleanup(hung.Close)
	provider := fmt.Sprintf(`
provider "clipper" {
  base_url            = %q
  api_key             = %q
  requests_per_minute = 600
}
`, hung.URL, accAPIKey)
	timedOut := regexp.MustCompile(`(?s)timeouts\.read:\s+the\s+service\s+did\s+not\s+answer\s+within\s+1s`)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				Config: provider + `
data "clipper_brand_templates" "all" {
  timeouts = { read = "1s" }
}
`,
				ExpectError: timedOut,
			},
			{
				Config: provider + `
data "clipper_exportable_clips" "clips" {
  project_id = "p1"
  timeouts   = { read = "1s" }
}
`,
				ExpectError: timedOut,
			},
		},
	})
}
