package server

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/socialcopy"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// copyJobDone polls a copy job through the provider's client until it is no
// longer RUNNING.
func copyJobDone(t *testing.T, cl *client.Client, id string) *apitypes.SocialCopyJob {
	t.Helper()
	var job *apitypes.SocialCopyJob
	storetest.Eventually(t, "copy job "+id+" done", func() bool {
		var err error
		if job, err = cl.GetSocialCopyJob(t.Context(), id); err != nil {
			t.Fatalf("get copy job %s: %v", id, err)
		}
		return job.Status != apitypes.CopyRunning
	})
	return job
}

func connectAccount(t *testing.T, srv *Server, org string, a apitypes.SocialAccount) apitypes.SocialAccount {
	t.Helper()
	a, err := srv.store.ConnectSocialAccount(t.Context(), org, a)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// expectedCopy is the copy the generator makes of clip for the platform and prompt.
func expectedCopy(t *testing.T, clip apitypes.ExportableClip, platform, prompt string) socialcopy.Copy {
	t.Helper()
	want, err := socialcopy.Generate(socialcopy.Clip{Title: clip.Title, Description: clip.Description, Text: clip.Text,
		Hashtags: clip.Hashtags, Keywords: clip.Keywords}, platform, prompt)
	if err != nil {
		t.Fatal(err)
	}
	return want
}

func sameCopy(job *apitypes.SocialCopyJob, want socialcopy.Copy) bool {
	return job.Title == want.Title && job.Description == want.Description && job.Hashtags == want.Hashtags
}

// TestSocialCopyJobsCachedAndForceRegenerate runs a real project to a clip,
// then, through the provider's client, makes copy for it: a repeated
// request is answered from the cache (cached: true, at once), and
// forceRegenerate bypasses the cache and makes the copy again. Another org
// sees none of it, an account without a sub-account gets copy within its
// platform's limit, and a job left RUNNING by a stopped server is run by
// the next one.
func TestSocialCopyJobsCachedAndForceRegenerate(t *testing.T) {
	t.Parallel()
	video := sourceVideo(t)
	dir := t.TempDir()
	srv := startServer(t, Config{DataDir: dir})
	c := newClient(t, srv, devKey)
	_, clips := c.finishedProjects(video, [2]int{0, 12})
	clip := clips[0]
	page := connectAccount(t, srv, DevOrgID, apitypes.SocialAccount{Platform: "FACEBOOK_PAGE", ExtUserName: "Page", SubAccountID: "page-1"})
	cl, err := client.New(client.Config{BaseURL: srv.URL(), APIKey: devKey, RequestsPerMinute: 600})
	if err != nil {
		t.Fatal(err)
	}
	req := apitypes.SocialCopyJobRequest{ProjectID: clip.ProjectID, ClipID: clip.CurationID, PostAccountID: page.PostAccountID,
		SubAccountID: "page-1", Prompt: "formal"}
	want := expectedCopy(t, clip, "FACEBOOK_PAGE", "formal")
	create := func(r apitypes.SocialCopyJobRequest) string {
		t.Helper()
		id, err := cl.CreateSocialCopyJob(t.Context(), r)
		if err != nil {
			t.Fatalf("create copy job %+v: %v", r, err)
		}
		return id
	}

	firstID := create(req)
	first := copyJobDone(t, cl, firstID)
	if first.JobID != firstID || first.Status != apitypes.CopyCompleted || first.Cached || !sameCopy(first, want) || first.Title == "" {
		t.Fatalf("first job %+v, want COMPLETED, not cached, with %+v", first, want)
	}

	// The same request again: a new job, COMPLETED from the cache at once.
	cachedID := create(req)
	cached, err := cl.GetSocialCopyJob(t.Context(), cachedID)
	if err != nil {
		t.Fatal(err)
	}
	if cachedID == firstID || cached.Status != apitypes.CopyCompleted || !cached.Cached || !sameCopy(cached, want) {
		t.Errorf("repeated job %+v, want a new job COMPLETED and cached with the first copy", cached)
	}

	// forceRegenerate bypasses the cache and makes the copy again...
	forced := req
	forced.ForceRegenerate = true
	regenerated := copyJobDone(t, cl, create(forced))
	if regenerated.Status != apitypes.CopyCompleted || regenerated.Cached || !sameCopy(regenerated, want) {
		t.Errorf("regenerated job %+v, want COMPLETED and not cached", regenerated)
	}
	// ...which the next request is served from.
	if job := copyJobDone(t, cl, create(req)); !job.Cached {
		t.Errorf("job after regenerating %+v, want cached", job)
	}
	// Another prompt is another cache entry.
	casual := req
	casual.Prompt = "casual"
	if job := copyJobDone(t, cl, create(casual)); job.Cached || !sameCopy(job, expectedCopy(t, clip, "FACEBOOK_PAGE", "casual")) {
		t.Errorf("job with another prompt %+v, want new casual copy", job)
	}

	// An account without a sub-account takes an empty subAccountId (sent
	// here without the client, which requires one); its copy fits one post
	// of 280 characters, in the tone the prompt names.
	x := connectAccount(t, srv, DevOrgID, apitypes.SocialAccount{Platform: "TWITTER", ExtUserName: "me"})
	resp, data := c.do(http.MethodPost, "/api/social-copy-jobs", apitypes.SocialCopyJobRequest{
		ProjectID: clip.ProjectID, ClipID: clip.CurationID, PostAccountID: x.PostAccountID, Prompt: "Sound excited!",
	})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create for TWITTER: %d %s", resp.StatusCode, data)
	}
	tweet := copyJobDone(t, cl, decode[apitypes.Envelope[apitypes.SocialCopyJobCreated]](t, data).Data.JobID)
	if tweet.Status != apitypes.CopyCompleted || !sameCopy(tweet, expectedCopy(t, clip, "TWITTER", "excited")) {
		t.Errorf("TWITTER job %+v, want COMPLETED with the excited copy", tweet)
	}
	post := strings.Join([]string{tweet.Title, tweet.Description, tweet.Hashtags}, "\n\n")
	if n := utf8.RuneCountInString(post); n > 280 || !strings.HasSuffix(tweet.Title, "!") {
		t.Errorf("TWITTER post of %d characters (want at most 280), title %q", n, tweet.Title)
	}

	// Another org: neither the job nor the clip.
	otherKey, err := srv.store.CreateKey(t.Context(), "org-other", "user-other")
	if err != nil {
		t.Fatal(err)
	}
	other := newClient(t, srv, otherKey)
	resp, data = other.do(http.MethodGet, "/api/social-copy-jobs/"+firstID, nil)
	wantError(t, resp, data, http.StatusNotFound, "Not Found", firstID)
	otherPage := connectAccount(t, srv, "org-other", apitypes.SocialAccount{Platform: "FACEBOOK_PAGE", ExtUserName: "Theirs", SubAccountID: "page-1"})
	otherReq := req
	otherReq.PostAccountID = otherPage.PostAccountID
	resp, data = other.do(http.MethodPost, "/api/social-copy-jobs", otherReq)
	wantError(t, resp, data, http.StatusNotFound, "Not Found", clip.ProjectID)

	// A job left RUNNING by a stopped server is run by the next start.
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	st := openData(t, dir)
	left := &store.CopyJob{OrgID: DevOrgID, ProjectID: clip.ProjectID, ClipID: clip.CurationID, PostAccountID: page.PostAccountID,
		SubAccountID: "page-1", Prompt: "formal", Platform: "FACEBOOK_PAGE", ClipVersion: clip.UpdatedAt}
	err = st.CreateCopyJob(t.Context(), left, true, nil) // as a release before the job system stored it
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil || left.Status != apitypes.CopyRunning {
		t.Fatalf("left job %+v: %v", left, err)
	}
	srv2 := startServer(t, Config{DataDir: dir})
	cl2, err := client.New(client.Config{BaseURL: srv2.URL(), APIKey: devKey, RequestsPerMinute: 600})
	if err != nil {
		t.Fatal(err)
	}
	if job := copyJobDone(t, cl2, left.ID); job.Status != apitypes.CopyCompleted || !sameCopy(job, want) {
		t.Errorf("job left RUNNING, after a restart: %+v, want COMPLETED with %+v", job, want)
	}
}
