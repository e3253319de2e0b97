package acctest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/datadirtest"
)

// accAccount is the connected account of platform seeded for the tests.
func (e accEnv) accAccount(t *testing.T, platform string) apitypes.SocialAccount {
	t.Helper()
	accounts, err := e.apiClient(t).ListSocialAccounts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range accounts {
		if a.Platform == platform {
			return a
		}
	}
	t.Fatalf("no %s account is connected: %v", platform, accounts)
	return apitypes.SocialAccount{}
}

// The arguments of every test post besides its clip, account and title.
const (
	testPostDescription = "Out now #clips"
	testPostMediaType   = "VIDEO"
	testPostPrivacy     = "unlisted"
)

// socialPostConfig is env's provider block and a resource typ "test" that
// posts the clip contentID to account (naming its sub-account when it has
// one) under title, with the test post's other arguments and extra lines.
func socialPostConfig(env accEnv, typ, contentID string, account apitypes.SocialAccount, title, extra string) string {
	sub := ""
	if account.SubAccountID != "" {
		sub = fmt.Sprintf("sub_account_id  = %q", account.SubAccountID)
	}
	return env.providerBlock() + fmt.Sprintf(`
resource %q "test" {
  content_id      = %q
  post_account_id = %q
  %s
  title           = %q
  description     = %q
  media_type      = %q
  privacy         = %q
  %s
}
`, typ, contentID, account.PostAccountID, sub, title, testPostDescription, testPostMediaType, testPostPrivacy, extra)
}

// testPostDetail is the postDetail socialPostConfig's resource sends.
func testPostDetail(title string) apitypes.PostDetail {
	return apitypes.PostDetail{Title: title, MediaType: testPostMediaType,
		Custom: &apitypes.PostDetailCustom{Description: testPostDescription, Privacy: testPostPrivacy}}
}

// checkPublished checks that post postID of socialPostConfig's resource
// (made by schedule scheduleID, or "") was published: its post.json says
// what the configuration asked.
func checkPublished(t *testing.T, env accEnv, account apitypes.SocialAccount, contentID, title, postID, scheduleID string) error {
	t.Helper()
	post, err := env.publishedPost(t, account.PostAccountID, postID)
	if err != nil {
		return fmt.Errorf("post %s: %w", postID, err)
	}
	want := apitypes.PublishedPost{PostID: postID, ScheduleID: scheduleID, Platform: account.Platform, PostAccountID: account.PostAccountID,
		SubAccountID: account.SubAccountID, ContentID: contentID, Title: title, Description: testPostDescription,
		Privacy: testPostPrivacy, MediaType: testPostMediaType, PublishedAt: post.PublishedAt}
	if post != want || post.PublishedAt == "" {
		return fmt.Errorf("published %+v, want %+v", post, want)
	}
	return nil
}

// expectAction checks that the plan of a step takes action on addr, and
// that the plan after its apply is empty.
func expectAction(addr string, action plancheck.ResourceActionType) tfresource.ConfigPlanChecks {
	return tfresource.ConfigPlanChecks{
		PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, action)},
		PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
	}
}

// publishDeadline bounds the wait for clipperd to publish a post: the
// publish worker runs within a second of a post being made.
const publishDeadline = time.Minute

// publishedPost waits for the post.json clipperd's dir destination writes for
// post postID of account, DATA/published/<postAccountId>/<postId>/, and
// returns it.
func (e accEnv) publishedPost(t *testing.T, account, postID string) (apitypes.PublishedPost, error) {
	t.Helper()
	file := filepath.Join(e.DataDir, "published", account, postID, "post.json")
	deadline := time.Now().Add(publishDeadline)
	for {
		data, err := os.ReadFile(file)
		if err == nil {
			var post apitypes.PublishedPost
			return post, json.Unmarshal(data, &post)
		}
		if !errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
			return apitypes.PublishedPost{}, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// errorParts matches an error holding each of parts in order, however
// Terraform wraps its lines.
func errorParts(parts ...string) *regexp.Regexp {
	patterns := make([]string, len(parts))
	for i, p := range parts {
		patterns[i] = errorText(p).String()
	}
	return regexp.MustCompile(`(?s)` + strings.Join(patterns, ".*"))
}

// storeOf opens the store of a clipperd beside the running server, for what
// the API does not show (a schedule's state), closing it when t ends.
func storeOf(t *testing.T, dataDir string) *store.Store {
	t.Helper()
	st, err := datadirtest.OpenContext(t.Context(), dataDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}
