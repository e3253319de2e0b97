package acctest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

const censorAddr = "clipper_censor_job.test"

func censorConfig(env accEnv, contentID, beep string) string {
	return env.providerBlock() + fmt.Sprintf(`
resource "clipper_censor_job" "test" {
  content_id = %q
  %s
}
`, contentID, beep)
}

// TestAccCensorJob_lifecycle censors the shared project's clip (its speech
// has no profanity, so the job concludes with the clip unchanged; the audio
// itself is checked by clipperd's tests): create waits for CONCLUDED, a
// change replaces the job, and an unknown clip fails.
func TestAccCensorJob_lifecycle(t *testing.T) {
	env := testAccSetup(t)
	projectID, clips := env.completeProject(t)
	clipID := clips[0].ID
	newID := statecheck.CompareValue(compare.ValuesDiffer())
	concluded := statecheck.ExpectKnownValue(censorAddr, tfjsonpath.New("status"), knownvalue.StringExact(apitypes.CensorConcluded))

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				Config:      censorConfig(env, "c01", ""),
				PlanOnly:    true,
				ExpectError: errorText(`content_id`),
			},
			{
				Config:           censorConfig(env, clipID, ""),
				ConfigPlanChecks: expectAction(censorAddr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					concluded, newID.AddStateValue(censorAddr, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(censorAddr, tfjsonpath.New("beep_sound"), knownvalue.Bool(false)),
				},
			},
			{
				Config:           censorConfig(env, clipID, "beep_sound = true"),
				ConfigPlanChecks: expectAction(censorAddr, plancheck.ResourceActionReplace),
				ConfigStateChecks: []statecheck.StateCheck{
					concluded, newID.AddStateValue(censorAddr, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(censorAddr, tfjsonpath.New("beep_sound"), knownvalue.Bool(true)),
				},
			},
			{
				Config:      censorConfig(env, projectID+".c99", ""),
				ExpectError: regexp.MustCompile(`(?s)Unable to start censor job.*c99`),
			},
		},
	})
}

// stubCensorJobs serves a censor job job_1 whose GETs answer answers in
// turn, the last one from then on.
func stubCensorJobs(t *testing.T, answers ...apitypes.CensorJobStatus) accEnv {
	t.Helper()
	var gets atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.Method + " " + r.URL.Path {
		case "POST /api/censor-jobs":
			w.WriteHeader(http.StatusCreated)
			_ = json.NewEncoder(w).Encode(apitypes.CensorJob{JobID: "job_1", Message: "queued"})
		case "GET /api/censor-jobs/job_1":
			n := min(int(gets.Add(1)), len(answers)) - 1
			_ = json.NewEncoder(w).Encode(answers[n])
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"errorName":"Not Found","errorMessage":"no route"}`))
		}
	}))
	t.Cleanup(srv.Close)
	return accEnv{URL: srv.URL}
}

// A FAILED job is an error with the job's reason, and the resource stays,
// tainted: the next plan replaces it.
func TestAccCensorJob_failed(t *testing.T) {
	testAccSetup(t)
	reason := "censoring c01.mp4 failed: ffmpeg exited"
	env := stubCensorJobs(t,
		apitypes.CensorJobStatus{Status: apitypes.CensorProcessing},
		apitypes.CensorJobStatus{Status: apitypes.CensorFailed, Error: &reason})
	config := env.providerBlock() + `
resource "clipper_censor_job" "test" {
  content_id = "prj_1.c01"
}
`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				Config:      config,
				ExpectError: errorParts("Censor job failed", "Censor job job_1: the job FAILED: "+reason, "tainted"),
			},
			{
				Config:             config,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}

// A job still running when timeouts.create is spent is an error naming the
// timeout.
func TestAccCensorJob_timeout(t *testing.T) {
	testAccSetup(t)
	env := stubCensorJobs(t, apitypes.CensorJobStatus{Status: apitypes.CensorProcessing})
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{{
			Config: env.providerBlock() + `
resource "clipper_censor_job" "test" {
  content_id = "prj_1.c01"
  timeouts = {
    create = "2s"
  }
}
`,
			ExpectError: errorParts("Timed out waiting for censor job", "did not conclude within 2s", "last status PROCESSING"),
		}},
	})
}

// TestAccCensorJob_outage: while the create waits for a real job, the
// service answers its status reads with 503 for more reads than one call's
// attempts (a proxy in front of clipperd, as a restart behind a load
// balancer answers). The wait rides it out: the job ends CONCLUDED,
// untainted, and the next plan is empty.
func TestAccCensorJob_outage(t *testing.T) {
	env := testAccSetup(t)
	_, clips := env.completeProject(t)
	const outageReads = 6 // one call makes 5 attempts
	var refused atomic.Int64
	proxied := accEnv{URL: proxyTo(t, env.URL, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/censor-jobs/") && refused.Add(1) <= outageReads {
			writeAPIError(w, http.StatusServiceUnavailable, "Service Unavailable", "restarting")
			return true
		}
		return false
	})}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{{
			Config: censorConfig(proxied, clips[0].ID, ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(censorAddr, tfjsonpath.New("status"), knownvalue.StringExact(apitypes.CensorConcluded)),
			},
			Check: func(*terraform.State) error {
				if n := refused.Load(); n <= outageReads {
					return fmt.Errorf("%d status reads, the outage alone took %d: nothing was ridden out", n, outageReads)
				}
				return nil
			},
		}},
	})
}
