package acctest

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestAccSocialAccountsDataSource(t *testing.T) {
	env := testAccSetup(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			// The invalid step comes first: the post-test destroy runs the last config.
			{
				Config: env.providerBlock() + `
data "clipper_social_accounts" "bad" {
  platform = "MYSPACE"
}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)platform.*value must be one of.*YOUTUBE`),
			},
			{
				Config: env.providerBlock() + `
data "clipper_social_accounts" "all" {}

data "clipper_social_accounts" "youtube" {
  platform = "YOUTUBE"
}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.clipper_social_accounts.all", tfjsonpath.New("accounts"), knownvalue.ListSizeExact(len(accAccounts))),
					statecheck.ExpectKnownValue("data.clipper_social_accounts.youtube", tfjsonpath.New("id"), knownvalue.StringExact("mine/YOUTUBE")),
					statecheck.ExpectKnownValue("data.clipper_social_accounts.youtube", tfjsonpath.New("accounts"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"platform":              knownvalue.StringExact("YOUTUBE"),
							"ext_user_name":         knownvalue.StringExact("Clipper Channel"),
							"ext_user_profile_link": knownvalue.StringExact("https://www.youtube.com/@clipper"),
							"post_account_id":       knownvalue.NotNull(),
						}),
					})),
					statecheck.ExpectKnownValue("data.clipper_social_accounts.all", tfjsonpath.New("accounts").AtSliceIndex(1).AtMapKey("sub_account_id"), knownvalue.StringExact("urn:li:organization:42")),
				},
				Check: checkAccountsPlatform("data.clipper_social_accounts.youtube", "YOUTUBE"),
			},
		},
	})
}

// checkAccountsPlatform checks that a filtered list holds only that platform.
func checkAccountsPlatform(addr, platform string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		platforms, err := listedValues(s, addr, "accounts", "platform")
		if err != nil {
			return err
		}
		for i, got := range platforms {
			if got != platform {
				return fmt.Errorf("%s: account %d has platform %s, want only %s", addr, i, got, platform)
			}
		}
		return nil
	}
}
