package acctest

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
)

// outageLength is how long clipperd stays down in TestAccClipProject_outage:
// the outage the issue measured (a restart 40 s after a kill), far longer
// than the retries of one call.
const outageLength = 40 * time.Second

// TestAccClipProject_outage stops clipperd while a create waits for its
// project and starts it again on the same address and data 40 s later
// (clipperd resumes the project). The apply rides the outage out: it ends
// with the project COMPLETE, untainted, and the next plan is empty.
func TestAccClipProject_outage(t *testing.T) {
	env := testAccSetup(t)
	cfg := accServerConfig("127.0.0.1:0", filepath.Join(t.TempDir(), "data"), quota.Limits{})
	cfg.ShutdownGrace = 50 * time.Millisecond // Close cuts the run rather than letting it finish
	srv, err := startClipperdWith(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Listen = strings.TrimPrefix(srv.URL(), "http://") // the restart takes the same port

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	restarted := make(chan outageResult, 1)
	go func() { restarted <- interruptProject(ctx, srv, cfg) }()
	var result outageResult
	t.Cleanup(func() {
		cancel()
		if result == (outageResult{}) {
			result = <-restarted
		}
		if result.srv != nil {
			_ = result.srv.Close()
		}
	})

	const addr = "clipper_clip_project.outage"
	config := fmt.Sprintf(`
provider "clipper" {
  base_url            = %[1]q
  api_key             = %[2]q
  requests_per_minute = 600
}

resource "clipper_clip_project" "outage" {
  source_file = %[3]q
  curation = {
    clip_durations = [[4, 12]]
  }
  timeouts = {
    create = "10m"
  }
}
`, srv.URL(), accAPIKey, env.Video)

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				// An error here would leave the project tainted.
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("stage"), knownvalue.StringExact(string(apitypes.StageComplete))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("clip_count"), knownvalue.Int64Func(atLeastOne)),
				},
				Check: checkInterrupted(&result, restarted),
			},
			{
				Config:   config,
				PlanOnly: true,
			},
		},
	})
}

// outageResult is what interruptProject did: the stage the project was
// interrupted in, and the clipperd started again (nil if it was not).
type outageResult struct {
	stage apitypes.Stage
	srv   *server.Server
	err   error
}

// interruptProject waits for the project in srv's store to be processing,
// closes srv, and after outageLength starts clipperd again with cfg.
func interruptProject(ctx context.Context, srv *server.Server, cfg server.Config) outageResult {
	if _, err := awaitProcessing(ctx, cfg.DataDir); err != nil {
		_ = srv.Close()
		return outageResult{err: err}
	}
	_ = srv.Close() // the cut run is reported as an error; it is expected
	stage, err := storedStage(ctx, cfg.DataDir)
	if err != nil || stage == apitypes.StageComplete {
		return outageResult{stage: stage, err: fmt.Errorf("after Close the project is %s (%v): nothing was interrupted", stage, err)}
	}
	select {
	case <-ctx.Done():
		return outageResult{stage: stage, err: ctx.Err()}
	case <-time.After(outageLength):
	}
	again, err := startClipperdWith(ctx, cfg)
	return outageResult{stage: stage, srv: again, err: err}
}

// awaitProcessing polls the store of dataDir until its project is in a
// processing stage after IMPORT: the create has been waiting a while.
func awaitProcessing(ctx context.Context, dataDir string) (apitypes.Stage, error) { //nolint:unparam // the stage is for a reader's log
	midway := []apitypes.Stage{apitypes.StageCurate, apitypes.StageRefine, apitypes.StageRender}
	for {
		// A read that fails (no project yet, or the database busy while the
		// server writes it on a loaded machine) is tried again: an early
		// return would close clipperd before the apply's upload.
		stage, err := storedStage(ctx, dataDir)
		switch {
		case err != nil:
		case slices.Contains(midway, stage):
			return stage, nil
		case stage.Terminal():
			return stage, fmt.Errorf("the project reached %s before it could be interrupted", stage)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// storedStage reads the stage of the one project in the store of dataDir
// from its database file, beside the running server (as an operator would).
func storedStage(ctx context.Context, dataDir string) (apitypes.Stage, error) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dataDir, "clipperd.db")+"?mode=ro")
	if err != nil {
		return "", err
	}
	defer db.Close()
	var stage string
	err = db.QueryRowContext(ctx, `SELECT stage FROM projects`).Scan(&stage)
	return apitypes.Stage(stage), err
}

// checkInterrupted fails the step unless the outage really happened while
// the create waited: the project was cut mid-run and clipperd came back.
func checkInterrupted(result *outageResult, restarted <-chan outageResult) resource.TestCheckFunc {
	return func(*terraform.State) error {
		*result = <-restarted
		return result.err
	}
}
