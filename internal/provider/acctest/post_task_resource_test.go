package acctest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

const postAddr = "clipper_post_task.test"

// postConfig publishes the clip contentID to account under title.
func postConfig(env accEnv, contentID string, account apitypes.SocialAccount, title string) string {
	return socialPostConfig(env, "clipper_post_task", contentID, account, title, "")
}

func TestAccPostTask_lifecycle(t *testing.T) {
	env := testAccSetup(t)
	_, clips := env.completeProject(t)
	clipID := clips[0].ID
	youtube, linkedin := env.accAccount(t, "YOUTUBE"), env.accAccount(t, "LINKEDIN")
	var posts []publishedRef // every post the test published
	newID := statecheck.CompareValue(compare.ValuesDiffer())
	// published checks that the post in state was published as asked, to
	// account, and that every earlier post still is.
	published := func(account apitypes.SocialAccount, title string) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			id := s.RootModule().Resources[postAddr].Primary.ID
			posts = append(posts, publishedRef{account.PostAccountID, id})
			if err := checkPublished(t, env, account, clipID, title, id, ""); err != nil {
				return err
			}
			return stillPublished(env, posts)
		}
	}
	// Each step's id, new every time the post is replaced.
	stateID := func() statecheck.StateCheck { return newID.AddStateValue(postAddr, tfjsonpath.New("id")) }

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				Config:            postConfig(env, clipID, youtube, "Launch"),
				ConfigPlanChecks:  expectAction(postAddr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{stateID()},
				Check:             published(youtube, "Launch"),
			},
			{
				// A new title publishes again, as a new post.
				Config:            postConfig(env, clipID, youtube, "Launch day"),
				ConfigPlanChecks:  expectAction(postAddr, plancheck.ResourceActionReplace),
				ConfigStateChecks: []statecheck.StateCheck{stateID()},
				Check:             published(youtube, "Launch day"),
			},
			{
				// Taken down outside Terraform (its publication removed):
				// nothing reads a post, so Terraform neither errs nor
				// publishes it again.
				PreConfig: func() {
					last := posts[len(posts)-1]
					if err := os.RemoveAll(filepath.Join(env.DataDir, "published", last.account, last.post)); err != nil {
						t.Fatal(err)
					}
					posts = posts[:len(posts)-1]
				},
				Config:           postConfig(env, clipID, youtube, "Launch day"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				// Another account, with its sub-account.
				Config:            postConfig(env, clipID, linkedin, "Launch day"),
				ConfigPlanChecks:  expectAction(postAddr, plancheck.ResourceActionReplace),
				ConfigStateChecks: []statecheck.StateCheck{stateID()},
				Check:             published(linkedin, "Launch day"),
			},
		},
		// Destroy forgets: every post stays published.
		CheckDestroy: func(*terraform.State) error { return stillPublished(env, posts) },
	})
}

// publishedRef names a post clipperd published: its account and id.
type publishedRef struct{ account, post string }

// stillPublished checks that each post is still published.
func stillPublished(env accEnv, posts []publishedRef) error {
	for _, p := range posts {
		if _, err := os.Stat(filepath.Join(env.DataDir, "published", p.account, p.post, "post.json")); err != nil {
			return fmt.Errorf("post %s is no longer published: %w", p.post, err)
		}
	}
	return nil
}

// A clipperd of its own with one credit a month: the first TWITTER post
// takes it, the second is refused with the monthly cap's 403, told as a
// diagnostic at post_account_id saying when posting resumes.
func TestAccPostTask_monthlyCap(t *testing.T) {
	testAccSetup(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	srv, err := startClipperd(t.Context(), dataDir, quota.Limits{MonthlyCredits: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("closing clipperd: %v", err)
		}
	})
	env := accEnv{URL: srv.URL(), DataDir: dataDir}
	contentID, twitter := seedPostable(t, dataDir, "TWITTER")

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{{
			Config: env.providerBlock() + fmt.Sprintf(`
resource "clipper_post_task" "first" {
  content_id      = %[1]q
  post_account_id = %[2]q
  title           = "Takes the month's credit"
}

resource "clipper_post_task" "second" {
  content_id      = %[1]q
  post_account_id = %[2]q
  title           = "One too many"
  depends_on      = [clipper_post_task.first]
}
`, contentID, twitter),
			ExpectError: errorParts("Monthly API cap reached", "post_account_id: the service refused to publish clip "+contentID+
				" to account "+twitter, "a post to a TWITTER account costs 1 credit", "API_MONTHLY_CAP_REACHED", "Access resumes at",
				"clipperd serve --monthly-credits N"),
		}},
	})
}

// seedPostable records, in the store of a clipperd in dataDir, a COMPLETE
// project with one clip and an account of platform, as
// `clipperd accounts connect` would; it returns the clip's content id and
// the account's postAccountId. Posting needs no render until publishing.
func seedPostable(t *testing.T, dataDir, platform string) (contentID, account string) {
	t.Helper()
	st := storeOf(t, dataDir)
	ctx := t.Context()
	now := st.Now()
	p := &store.Project{ID: store.NewID("prj_"), OrgID: server.DevOrgID, UserID: server.DevUserID, Stage: apitypes.StageComplete,
		CreatedAt: now, UpdatedAt: now}
	if err := st.CreateProject(ctx, p, store.Admission{}); err != nil {
		t.Fatal(err)
	}
	clip := store.Clip{ID: p.ID + ".c01", CurationID: "c01", ProjectID: p.ID}
	if err := st.ReplaceClips(ctx, p.ID, server.DevOrgID, []store.Clip{clip}); err != nil {
		t.Fatal(err)
	}
	a, err := st.ConnectSocialAccount(ctx, server.DevOrgID, apitypes.SocialAccount{Platform: platform, ExtUserName: "Clipper " + platform})
	if err != nil {
		t.Fatal(err)
	}
	return clip.ID, a.PostAccountID
}

// Import of a post task refuses with the resource's own reason, both by
// `terraform import` and by an import block, not the framework's generic
// "contact the provider developer".
func TestAccPostTask_importRefused(t *testing.T) {
	env := testAccSetup(t)
	_, clips := env.completeProject(t)
	youtube := env.accAccount(t, "YOUTUBE")
	refused := regexp.MustCompile(`(?s)clipper_post_task cannot be imported.*"post-1".*clipper_publish_schedule`)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{Config: env.providerBlock()}, // a state to import into
			{
				Config:             postConfig(env, clips[0].ID, youtube, "Imported"),
				ResourceName:       postAddr,
				ImportState:        true,
				ImportStateId:      "post-1",
				ImportStatePersist: true, // into the step's own state: there is no post task to copy it from
				ExpectError:        refused,
			},
			{
				// An import block, as -generate-config-out would plan it.
				Config:      postConfig(env, clips[0].ID, youtube, "Imported") + "\nimport {\n  to = " + postAddr + "\n  id = \"post-1\"\n}\n",
				PlanOnly:    true,
				ExpectError: refused,
			},
		},
	})
}
