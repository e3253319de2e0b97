package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
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
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s not in state", addr)
		}
		n, err := strconv.Atoi(rs.Primary.Attributes["templates.#"])
		if err != nil {
			return fmt.Errorf("%s: templates.#: %w", addr, err)
		}
		var ids []string
		for i := range n {
			ids = append(ids, rs.Primary.Attributes[fmt.Sprintf("templates.%d.template_id", i)])
		}
		for _, want := range apitypes.PresetTemplateIDs {
			if !slices.Contains(ids, want) {
				return fmt.Errorf("%s lacks preset %s (has %v)", addr, want, ids)
			}
		}
		return nil
	}
}

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
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s not in state", addr)
		}
		n, err := strconv.Atoi(rs.Primary.Attributes["accounts.#"])
		if err != nil {
			return fmt.Errorf("%s: accounts.#: %w", addr, err)
		}
		for i := range n {
			if got := rs.Primary.Attributes[fmt.Sprintf("accounts.%d.platform", i)]; got != platform {
				return fmt.Errorf("%s: account %d has platform %s, want only %s", addr, i, got, platform)
			}
		}
		return nil
	}
}

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

// A collection's clips, listed by collection_id: a project is made through
// the API beside Terraform, its clips go into a collection, and the data
// source lists them in the order they were added.
func TestAccExportableClipsDataSource_byCollection(t *testing.T) {
	env := testAccSetup(t)
	ctx := t.Context()
	c := env.apiClient(t)
	uploadID, err := c.UploadFile(ctx, env.Video)
	if err != nil {
		t.Fatal(err)
	}
	created, err := c.CreateProject(ctx, apitypes.CreateProjectRequest{
		VideoURL:     uploadID,
		CurationPref: &apitypes.CurationPref{SkipCurate: ptr(true)},
		RenderPref:   &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectSquare},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitForProject(ctx, created.ID, client.WaitOptions{PollInterval: 300 * time.Millisecond, MaxPollInterval: time.Second}); err != nil {
		t.Fatal(err)
	}
	clips, err := c.ListExportableClips(ctx, client.ClipFilter{ProjectID: created.ID})
	if err != nil || len(clips) == 0 {
		t.Fatalf("clips of %s: %d, %v", created.ID, len(clips), err)
	}
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
				statecheck.ExpectKnownValue("data.clipper_exportable_clips.coll", tfjsonpath.New("clips").AtSliceIndex(0).AtMapKey("project_id"), knownvalue.StringExact(created.ID)),
				statecheck.ExpectKnownValue("data.clipper_exportable_clips.coll", tfjsonpath.New("clips").AtSliceIndex(0).AtMapKey("render_pref").AtMapKey("layout_aspect_ratio"), knownvalue.StringExact("square")),
			},
		}},
	})
}
