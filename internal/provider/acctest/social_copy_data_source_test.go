package acctest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// socialCopyConfig asks for copy for the clip contentID on the YouTube
// account (no sub-account) and the LinkedIn one (with its sub-account
// unless dropSub).
func socialCopyConfig(env accEnv, contentID string, youtube, linkedin apitypes.SocialAccount, force, dropSub bool) string {
	sub := fmt.Sprintf("sub_account_id   = %q", linkedin.SubAccountID)
	if dropSub {
		sub = ""
	}
	return env.providerBlock() + fmt.Sprintf(`
data "clipper_social_copy" "youtube" {
  content_id       = %[1]q
  post_account_id  = %[2]q
  prompt           = "acceptance test, playful"
  force_regenerate = %[5]t
}

data "clipper_social_copy" "linkedin" {
  content_id       = %[1]q
  post_account_id  = %[3]q
  %[4]s
  prompt           = "acceptance test, playful"
  force_regenerate = %[5]t
}
`, contentID, youtube.PostAccountID, linkedin.PostAccountID, sub, force)
}

func TestAccSocialCopyDataSource(t *testing.T) {
	env := testAccSetup(t)
	_, clips := env.completeProject(t)
	youtube, linkedin := env.accAccount(t, "YOUTUBE"), env.accAccount(t, "LINKEDIN")
	const yt, li = "data.clipper_social_copy.youtube", "data.clipper_social_copy.linkedin"
	sameTitle := statecheck.CompareValue(compare.ValuesSame())
	sameHashtags := statecheck.CompareValue(compare.ValuesSame())
	written := knownvalue.StringRegexp(regexp.MustCompile(`\S`))

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				Config: env.providerBlock() + `
data "clipper_social_copy" "bad" {
  content_id      = "c01"
  post_account_id = "pa_1"
}
`,
				PlanOnly:    true,
				ExpectError: errorText(`content_id: must be a clip id of the form {projectId}.{curationId}, not "c01"`),
			},
			{
				// Regenerated: a new copy, not the cache's.
				Config: socialCopyConfig(env, clips[0].ID, youtube, linkedin, true, false),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(yt, tfjsonpath.New("cached"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(yt, tfjsonpath.New("id"), written),
					statecheck.ExpectKnownValue(yt, tfjsonpath.New("title"), written),
					statecheck.ExpectKnownValue(yt, tfjsonpath.New("description"), written),
					statecheck.ExpectKnownValue(yt, tfjsonpath.New("hashtags"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(li, tfjsonpath.New("cached"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(li, tfjsonpath.New("title"), written),
					sameTitle.AddStateValue(yt, tfjsonpath.New("title")),
					sameHashtags.AddStateValue(yt, tfjsonpath.New("hashtags")),
				},
			},
			{
				// Asked again: the copy just made, from the cache.
				Config: socialCopyConfig(env, clips[0].ID, youtube, linkedin, false, false),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(yt, tfjsonpath.New("cached"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(li, tfjsonpath.New("cached"), knownvalue.Bool(true)),
					sameTitle.AddStateValue(yt, tfjsonpath.New("title")),
					sameHashtags.AddStateValue(yt, tfjsonpath.New("hashtags")),
				},
			},
			{
				// The LinkedIn account has a sub-account, which the job must name.
				Config:      socialCopyConfig(env, clips[0].ID, youtube, linkedin, false, true),
				ExpectError: errorParts("Unable to start social copy job", "sub_account_id: starting a copy job", "subAccountId: is required for account"),
			},
		},
	})
}

// stubCopyJobs answers like the service for copy job job_1, whose GETs
// answer the given jobs in turn, the last one ever after.
func stubCopyJobs(t *testing.T, answers ...apitypes.SocialCopyJob) accEnv {
	t.Helper()
	var gets atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.Method + " " + r.URL.Path {
		case "POST /api/social-copy-jobs":
			w.WriteHeader(http.StatusCreated)
			_ = json.NewEncoder(w).Encode(apitypes.Envelope[apitypes.SocialCopyJobCreated]{Data: apitypes.SocialCopyJobCreated{JobID: "job_1"}})
		case "GET /api/social-copy-jobs/job_1":
			n := min(int(gets.Add(1)), len(answers)) - 1
			_ = json.NewEncoder(w).Encode(apitypes.Envelope[apitypes.SocialCopyJob]{Data: answers[n]})
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"errorName":"Not Found","errorMessage":"no route"}`))
		}
	}))
	t.Cleanup(srv.Close)
	return accEnv{URL: srv.URL}
}

const stubCopyConfig = `
data "clipper_social_copy" "test" {
  content_id      = "prj_1.c01"
  post_account_id = "pa_1"

  timeouts = {
    read = "2s"
  }
}
`

// A FAILED job ends the read with the job's reason.
func TestAccSocialCopyDataSource_failed(t *testing.T) {
	testAccSetup(t)
	env := stubCopyJobs(t,
		apitypes.SocialCopyJob{JobID: "job_1", Status: apitypes.CopyRunning},
		apitypes.SocialCopyJob{JobID: "job_1", Status: apitypes.CopyFailed, Error: "the clip no longer exists"})
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{{
			Config:      env.providerBlock() + stubCopyConfig,
			ExpectError: errorParts("Social copy job failed", "Copy job job_1: the job FAILED: the clip no longer exists"),
		}},
	})
}

// A job still RUNNING when timeouts.read is spent ends the read with an error
// naming the timeout.
func TestAccSocialCopyDataSource_timeout(t *testing.T) {
	testAccSetup(t)
	env := stubCopyJobs(t, apitypes.SocialCopyJob{JobID: "job_1", Status: apitypes.CopyRunning})
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{{
			Config: env.providerBlock() + stubCopyConfig,
			ExpectError: errorParts("Timed out waiting for social copy job", "timeouts.read: copy job job_1 did not complete within 2s",
				"last status RUNNING", "Raise timeouts.read"),
		}},
	})
}
