package acctest

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccTimeouts_validated: a timeout that is zero, negative or not a
// duration fails the plan with an error naming it, in every resource and
// data source that takes timeouts, before anything is read or created.
func TestAccTimeouts_validated(t *testing.T) {
	env := testAccSetup(t)
	rule := func(name, value string) *regexp.Regexp {
		return regexp.MustCompile(fmt.Sprintf(`(?s)Invalid timeout.*timeouts\.%s:\s+must\s+be\s+a\s+positive\s+duration.*not\s+"%s"`,
			name, regexp.QuoteMeta(value)))
	}
	project := func(timeouts string) string {
		return fmt.Sprintf(`resource "clipper_clip_project" "bad" {
  video_url = "https://videos.example.com/talk.mp4"
  timeouts  = { %s }
}`, timeouts)
	}
	cases := []struct {
		config string
		want   *regexp.Regexp
	}{
		{project(`create = "-5m"`), rule("create", "-5m")},
		{project(`read = "0s"`), rule("read", "0s")},
		{project(`update = "soon"`), rule("update", "soon")},
		{`resource "clipper_censor_job" "bad" {
  content_id = "prj_1.c01"
  timeouts   = { create = "0" }
}`, rule("create", "0")},
		{`data "clipper_exportable_clips" "bad" {
  project_id = "prj_1"
  timeouts   = { read = "-1s" }
}`, rule("read", "-1s")},
		{`data "clipper_social_accounts" "bad" {
  timeouts = { read = "0m" }
}`, rule("read", "0m")},
	}
	steps := make([]resource.TestStep, 0, len(cases))
	for _, tc := range cases {
		steps = append(steps, resource.TestStep{Config: env.providerBlock() + tc.config, PlanOnly: true, ExpectError: tc.want})
	}
	resource.ParallelTest(t, resource.TestCase{ProtoV6ProviderFactories: testAccProviders(), Steps: steps})
}
