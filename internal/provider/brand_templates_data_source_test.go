package provider

import (
	"fmt"
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
