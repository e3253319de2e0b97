package acctest

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
)

// producedConfig makes the source file during apply (terraform_data with a
// local-exec provisioner writes it) and creates a project from it without
// waiting. The title takes terraform_data's id, unknown until apply. The
// file holds text, not a video, so the project stalls at IMPORT, quickly.
func producedConfig(env accEnv, file string) string {
	return env.providerBlock() + fmt.Sprintf(`
resource "terraform_data" "media" {
  input = %[1]q
  provisioner "local-exec" {
    command = "printf 'meeting notes, not a video' > '${self.input}'"
  }
}

resource "clipper_clip_project" "produced" {
  source_file         = %[1]q
  title               = "Notes ${terraform_data.media.id}"
  wait_for_completion = false
  depends_on          = [terraform_data.media]
}
`, file)
}

// TestAccClipProject_sourceAtApply: source_file is read when the project is
// created, never at validate or plan time, so a file produced by the same
// apply works and a missing one fails at create naming source_file. The
// project stalls after a create that did not wait; Read keeps it, STALLED
// with its error, and plans no replacement (it warns, see
// TestReadWarnsWhileStalled). Without source_hash, another path replaces it.
func TestAccClipProject_sourceAtApply(t *testing.T) {
	env := testAccSetup(t)
	dir := t.TempDir()
	produced := filepath.Join(dir, "produced.mp4")
	const addr = "clipper_clip_project.produced"
	var projectID string

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				// Planned without the file; create refuses it.
				Config: env.providerBlock() + fmt.Sprintf(`
resource "clipper_clip_project" "missing" {
  source_file = %q
}
`, filepath.Join(dir, "missing.mp4")),
				ExpectError: regexp.MustCompile(`(?s)Unreadable source file.*source_file:\s+must\s+be\s+the\s+path\s+of\s+an\s+existing\s+file`),
			},
			{
				Config: producedConfig(env, produced),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("title")),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("title"), knownvalue.StringRegexp(regexp.MustCompile(`^Notes \S+$`))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("source_platform"), knownvalue.StringExact(apitypes.PlatformUploaded)),
				},
				Check: func(s *terraform.State) error {
					projectID = s.RootModule().Resources[addr].Primary.ID
					return waitStalled(t, env, projectID)
				},
			},
			{
				// Refreshed STALLED: no change planned, the stall in state.
				Config: producedConfig(env, produced),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("stage"), knownvalue.StringExact(string(apitypes.StageStalled))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("error"), knownvalue.StringRegexp(regexp.MustCompile(`IMPORT failed`))),
				},
			},
			{
				// No source_hash: a different path is a different source.
				Config:             producedConfig(env, filepath.Join(dir, "other.mp4")),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace),
						expectReplacedBy(addr, "source_file"),
					},
				},
			},
		},
	})
}

// waitStalled waits until the service reports the project STALLED.
func waitStalled(t *testing.T, env accEnv, id string) error {
	ctx := t.Context()
	_, err := env.apiClient(t).WaitForProject(ctx, id, client.WaitOptions{PollInterval: 300 * time.Millisecond, MaxPollInterval: time.Second})
	var stalled *client.StalledError
	if !errors.As(err, &stalled) {
		return fmt.Errorf("project %s should stall, the wait ended with %v", id, err)
	}
	return nil
}
