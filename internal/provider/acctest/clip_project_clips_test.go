package acctest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// clipsUser is a configuration where a project's clips are used by a post,
// two schedules (one far ahead, one at var.fire_at, which fires during the
// test) and collection contents, one per clip through for_each.
type clipsUser struct {
	visibility string
	wait       bool
	fired      bool // the schedule at var.fire_at
	forEach    bool // a collection content per clip
}

func (u clipsUser) config(env accEnv, youtube, linkedin apitypes.SocialAccount) string {
	var b strings.Builder
	b.WriteString(env.providerBlock())
	fmt.Fprintf(&b, `
variable "fire_at" {
  type    = string
  default = ""
}

resource "clipper_clip_project" "talk" {
  source_file         = %[1]q
  source_hash         = filesha256(%[1]q)
  visibility          = %[2]q
  wait_for_completion = %[3]t
  curation = {
    skip_curate = true
  }
  render = {
    layout_aspect_ratio = "square"
  }
}

resource "clipper_collection" "talk" {
  name = "clips of the talk"
}

resource "clipper_collection_content" "first" {
  collection_id = clipper_collection.talk.id
  content_id    = clipper_clip_project.talk.clips[0].id
}

resource "clipper_post_task" "first" {
  content_id      = clipper_clip_project.talk.clips[0].id
  post_account_id = %[4]q
  title           = clipper_clip_project.talk.clips[0].title
}

resource "clipper_publish_schedule" "pending" {
  content_id      = clipper_clip_project.talk.clips[0].id
  post_account_id = %[4]q
  title           = "Later"
  publish_at      = "2099-01-01T00:00:00Z"
}
`, env.Video, u.visibility, u.wait, youtube.PostAccountID)
	if u.fired {
		fmt.Fprintf(&b, `
resource "clipper_publish_schedule" "fired" {
  content_id      = clipper_clip_project.talk.clips[0].id
  post_account_id = %q
  sub_account_id  = %q
  title           = "Soon"
  publish_at      = var.fire_at
}
`, linkedin.PostAccountID, linkedin.SubAccountID)
	}
	if u.forEach {
		b.WriteString(`
resource "clipper_collection" "each" {
  name = "every clip of the talk"
}

resource "clipper_collection_content" "each" {
  for_each      = { for c in clipper_clip_project.talk.clips : c.id => c }
  collection_id = clipper_collection.each.id
  content_id    = each.key
}
`)
	}
	return b.String()
}

// lazyString is a Terraform variable whose value is read when the step
// writes its variables, not when the test case is built: a publish time set
// by the step's PreConfig.
type lazyString struct{ v *string }

func (l lazyString) MarshalJSON() ([]byte, error) { return json.Marshal(*l.v) }

// The project's clips stay known across in-place changes of the project (its
// visibility, wait_for_completion, visibility drift made outside Terraform),
// so nothing that uses them is replaced: no post published again, no
// schedule re-made, no collection content re-added, and a for_each over them
// plans. The project and what uses its clips are made in one apply.
func TestAccClipProject_clipsStayKnown(t *testing.T) {
	env, clock := testAccClockSetup(t)
	youtube, linkedin := env.accAccount(t, "YOUTUBE"), env.accAccount(t, "LINKEDIN")
	const (
		project  = "clipper_clip_project.talk"
		post     = "clipper_post_task.first"
		pending  = "clipper_publish_schedule.pending"
		fired    = "clipper_publish_schedule.fired"
		content  = "clipper_collection_content.first"
		eachAddr = "clipper_collection_content.each"
	)
	var fireAt, firedID, projectID string
	vars := config.Variables{"fire_at": lazyString{&fireAt}}
	samePost := statecheck.CompareValue(compare.ValuesSame())
	// step plans the configuration u: the project updated in place (when
	// update), everything that uses its clips left as it is.
	step := func(u clipsUser, update bool, more ...plancheck.PlanCheck) resource.TestStep {
		checks := []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(post, plancheck.ResourceActionNoop),
			plancheck.ExpectResourceAction(pending, plancheck.ResourceActionNoop),
			plancheck.ExpectResourceAction(fired, plancheck.ResourceActionNoop),
			plancheck.ExpectResourceAction(content, plancheck.ResourceActionNoop),
			plancheck.ExpectKnownValue(project, tfjsonpath.New("clips").AtSliceIndex(0).AtMapKey("id"), knownvalue.NotNull()),
		}
		if update {
			checks = append(checks, plancheck.ExpectResourceAction(project, plancheck.ResourceActionUpdate))
		}
		return resource.TestStep{
			Config:          u.config(env, youtube, linkedin),
			ConfigVariables: vars,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             append(checks, more...),
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{samePost.AddStateValue(post, tfjsonpath.New("id"))},
			Check:             func(*terraform.State) error { return onePostPerAccount(env, projectID, youtube, linkedin) },
		}
	}
	// forEach plans u with a for_each over the clips added, without
	// applying it: it must plan beside the project's in-place change. (Only
	// planned: the test framework cannot read for_each instances in state.)
	forEach := func(u clipsUser) resource.TestStep {
		u.forEach = true
		st := step(u, true, expectInstancesAction(eachAddr, plancheck.ResourceActionCreate))
		st.PlanOnly, st.ExpectNonEmptyPlan = true, true
		// Planned twice: without a refresh, then with one.
		checks := st.ConfigPlanChecks.PreApply
		st.ConfigPlanChecks = resource.ConfigPlanChecks{PostApplyPreRefresh: checks, PostApplyPostRefresh: checks}
		st.ConfigStateChecks, st.Check = nil, nil
		return st
	}
	base := clipsUser{visibility: "DEFAULT", wait: true}
	withFired := base
	withFired.fired = true
	visible := withFired
	visible.visibility = "PUBLIC"
	noWait := visible
	noWait.wait = false

	driftPlan := forEach(noWait)
	driftPlan.ConfigPlanChecks.PostApplyPreRefresh = nil // only a refresh sees the drift
	driftPlan.PreConfig = func() {
		// Made outside Terraform: the next refresh finds PUBLIC_VIEW.
		if _, err := env.apiClient(t).UpdateProjectVisibility(t.Context(), projectID, "PUBLIC_VIEW"); err != nil {
			t.Fatal(err)
		}
	}

	createStep := resource.TestStep{
		// One apply: the project, and everything that uses its clips.
		Config:          base.config(env, youtube, linkedin),
		ConfigVariables: vars,
		ConfigPlanChecks: resource.ConfigPlanChecks{
			PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(project, plancheck.ResourceActionCreate),
				plancheck.ExpectResourceAction(post, plancheck.ResourceActionCreate),
				plancheck.ExpectResourceAction(content, plancheck.ResourceActionCreate),
				plancheck.ExpectUnknownValue(post, tfjsonpath.New("content_id")),
			},
			PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
		},
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(project, tfjsonpath.New("clips"), knownvalue.ListSizeExact(1)),
			statecheck.CompareValuePairs(project, tfjsonpath.New("clips").AtSliceIndex(0).AtMapKey("id"),
				post, tfjsonpath.New("content_id"), compare.ValuesSame()),
			statecheck.ExpectKnownValue(project, tfjsonpath.New("clip_count"), knownvalue.Int64Exact(1)),
			samePost.AddStateValue(post, tfjsonpath.New("id")),
		},
		Check: resource.ComposeAggregateTestCheckFunc(
			recordID(project, &projectID),
			resource.TestCheckResourceAttrPair(project, "clips.0.project_id", project, "id"),
			resource.TestCheckResourceAttr(project, "clips.0.render_pref.layout_aspect_ratio", "square"),
			checkClipsDownload(t, project, "clips"),
		),
	}
	firedStep := step(withFired, false)
	var fireWhen time.Time
	firedStep.PreConfig = func() {
		fireWhen = clock.Now().Add(scheduleAhead).Truncate(time.Second)
		fireAt = fireWhen.UTC().Format(time.RFC3339)
	}
	firedStep.ConfigPlanChecks.PreApply = []plancheck.PlanCheck{plancheck.ExpectResourceAction(fired, plancheck.ResourceActionCreate)}
	firedStep.Check = recordID(fired, &firedID)

	visiblePlan := forEach(visible)
	visiblePlan.PreConfig = func() {
		// The fired schedule's time has passed: it must plan as it stands.
		clock.PassTo(fireWhen)
		if _, err := waitFired(t, env, firedID); err != nil {
			t.Fatal(err)
		}
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccClockProviders(clock),
		Steps: []resource.TestStep{
			createStep,
			firedStep,
			visiblePlan,
			step(visible, true),
			forEach(noWait),
			step(noWait, true),
			driftPlan,
			step(noWait, true), // the drift undone
		},
	})
}

// onePostPerAccount checks that clipperd published the project's clip once
// to each account: the post, and the schedule that fired (when it did).
func onePostPerAccount(env accEnv, projectID string, accounts ...apitypes.SocialAccount) error {
	for _, a := range accounts {
		dirs, err := os.ReadDir(filepath.Join(env.DataDir, "published", a.PostAccountID))
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		n := 0
		for _, d := range dirs {
			data, err := os.ReadFile(filepath.Join(env.DataDir, "published", a.PostAccountID, d.Name(), "post.json"))
			if err != nil {
				continue // being written
			}
			var p apitypes.PublishedPost
			if err := json.Unmarshal(data, &p); err != nil {
				return err
			}
			if strings.HasPrefix(p.ContentID, projectID+".") {
				n++
			}
		}
		if n > 1 {
			return fmt.Errorf("the clip of project %s was published %d times to %s, want once", projectID, n, a.Platform)
		}
	}
	return nil
}
