package server

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// publishWait bounds waits for the scheduler and the publish worker; a
// limit, not an expectation.
const publishWait = 30 * time.Second

// testClock is a server clock the test moves.
type testClock struct{ ns atomic.Int64 }

func newTestClock() *testClock {
	c := &testClock{}
	c.ns.Store(time.Date(2030, 3, 4, 12, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *testClock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *testClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// seededClip records a complete project of the dev org with one clip whose
// export render is render, as the pipeline leaves them, without running it.
func seededClip(t *testing.T, srv *Server, render []byte) (projectID, clipID string) {
	t.Helper()
	ctx := t.Context()
	p := &store.Project{ID: store.NewID("prj_"), OrgID: DevOrgID, UserID: DevUserID, Stage: apitypes.StageComplete,
		CreatedAt: srv.store.Now(), UpdatedAt: srv.store.Now()}
	if err := srv.store.CreateProject(ctx, p, store.Admission{}); err != nil {
		t.Fatal(err)
	}
	clip := store.Clip{ID: p.ID + ".c01", CurationID: "c01", URIForExport: srv.URL() + "/media/" + p.ID + "/c01.mp4"}
	if err := srv.store.ReplaceClips(ctx, p.ID, DevOrgID, []store.Clip{clip}); err != nil {
		t.Fatal(err)
	}
	media := filepath.Join(srv.dir, "media", p.ID, "c01.mp4")
	if err := os.MkdirAll(filepath.Dir(media), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(media, render, 0o644); err != nil {
		t.Fatal(err)
	}
	return p.ID, "c01"
}

// connect records an account of org on platform publishing to dir, with subAccount ("" for none).
func connect(t *testing.T, srv *Server, org, platform, subAccount string) string {
	t.Helper()
	a, err := srv.store.ConnectSocialAccount(t.Context(), org, apitypes.SocialAccount{
		Platform: platform, ExtUserName: "Clipper " + platform, SubAccountID: subAccount})
	if err != nil {
		t.Fatal(err)
	}
	return a.PostAccountID
}

func postBody(projectID, clipID, account string) apitypes.PostTaskRequest {
	return apitypes.PostTaskRequest{ProjectID: projectID, ClipID: clipID, PostAccountID: account,
		PostDetail: apitypes.PostDetail{Title: "Our launch", MediaType: "VIDEO",
			Custom: &apitypes.PostDetailCustom{Description: "It ships #clips", Privacy: apitypes.PrivacyUnlisted}}}
}

func scheduleBody(projectID, clipID, account string, at time.Time) apitypes.PublishScheduleRequest {
	return apitypes.PublishScheduleRequest{PostTaskRequest: postBody(projectID, clipID, account),
		PublishAt: at.UTC().Format(time.RFC3339)}
}

// devAPIClient is the provider's client for srv with the dev key.
func devAPIClient(t *testing.T, srv *Server) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: srv.URL(), APIKey: devKey, RequestsPerMinute: 6000})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// firedPost waits until schedule id fired and returns the post it made.
func firedPost(t *testing.T, srv *Server, id string) string {
	t.Helper()
	var sc *store.Schedule
	storetest.Eventually(t, "schedule "+id+" fired", func() bool {
		var err error
		if sc, err = srv.store.GetSchedule(t.Context(), id); err != nil {
			t.Fatal(err)
		}
		return sc.Status == store.ScheduleFired
	})
	return sc.PostID
}

// publishedPost waits for post id to be published and returns its post.json.
func publishedPost(t *testing.T, srv *Server, account, id string) apitypes.PublishedPost {
	t.Helper()
	storetest.Eventually(t, "post "+id+" published", func() bool {
		p, err := srv.store.GetPost(t.Context(), id)
		if err != nil || p.Status == store.PostFailed {
			t.Fatalf("post %s: %+v %v, want it published", id, p, err)
		}
		return p.Status == store.PostPublished
	})
	data, err := os.ReadFile(filepath.Join(srv.dir, "published", account, id, "post.json"))
	if err != nil {
		t.Fatal(err)
	}
	return decode[apitypes.PublishedPost](t, data)
}

// publishedIDs lists the posts published to account's directory.
func publishedIDs(t *testing.T, srv *Server, account string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(srv.dir, "published", account))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range entries {
		ids = append(ids, e.Name())
	}
	return ids
}

// TestScheduleOfARenderedClipFiresAndPublishes runs the real pipeline, then
// posts its first clip at once and on a schedule a few seconds ahead,
// through the provider's client: both appear under DATA/published with the
// clip's export render.
func TestScheduleOfARenderedClipFiresAndPublishes(t *testing.T) {
	t.Parallel()
	video := sourceVideo(t)
	srv := startServer(t, Config{})
	raw := newClient(t, srv, devKey)
	p := raw.mustCreate(map[string]any{"videoUrl": raw.uploadFile(video, 1<<20),
		"curationPref": map[string]any{"clipDurations": [][]float64{{5, 12}}}})
	raw.waitStage(p.ID, pipelineTimeout, apitypes.StageComplete)
	clip := raw.clips(p.ID)[0]
	resp, err := http.Get(clip.URIForExport)
	if err != nil {
		t.Fatal(err)
	}
	render, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || len(render) == 0 {
		t.Fatalf("export render: %d bytes, status %d, %v", len(render), resp.StatusCode, err)
	}

	account := connect(t, srv, DevOrgID, "FACEBOOK_PAGE", "page-1")
	c := devAPIClient(t, srv)
	body := postBody(p.ID, clip.CurationID, account)
	body.SubAccountID = "page-1"
	postID, err := c.CreatePostTask(t.Context(), body)
	if err != nil {
		t.Fatal(err)
	}
	sched := apitypes.PublishScheduleRequest{PostTaskRequest: body, PublishAt: time.Now().UTC().Add(2 * time.Second).Format(time.RFC3339Nano)}
	scheduleID, err := c.CreatePublishSchedule(t.Context(), sched)
	if err != nil {
		t.Fatal(err)
	}

	now := publishedPost(t, srv, account, postID)
	if now.ScheduleID != "" || now.ContentID != clip.ID || now.Platform != "FACEBOOK_PAGE" || now.SubAccountID != "page-1" {
		t.Errorf("post.json of the post task = %+v", now)
	}
	scheduledID := firedPost(t, srv, scheduleID)
	later := publishedPost(t, srv, account, scheduledID)
	want := apitypes.PublishedPost{PostID: scheduledID, ScheduleID: scheduleID, Platform: "FACEBOOK_PAGE", PostAccountID: account,
		SubAccountID: "page-1", ContentID: clip.ID, Title: "Our launch", Description: "It ships #clips",
		Privacy: "unlisted", MediaType: "VIDEO", PublishedAt: later.PublishedAt}
	if later != want {
		t.Errorf("post.json of the schedule = %+v, want %+v", later, want)
	}
	if at, err := time.Parse(time.RFC3339Nano, later.PublishedAt); err != nil || at.Before(time.Now().Add(-time.Minute)) {
		t.Errorf("publishedAt %q: %v", later.PublishedAt, err)
	}
	for _, id := range []string{postID, scheduledID} {
		got, err := os.ReadFile(filepath.Join(srv.dir, "published", account, id, "clip.mp4"))
		if err != nil || !bytes.Equal(got, render) {
			t.Errorf("clip.mp4 of post %s: %d bytes, %v; want the %d bytes of the export render", id, len(got), err, len(render))
		}
	}
	if ids := publishedIDs(t, srv, account); len(ids) != 2 {
		t.Errorf("published directories %v, want the two posts", ids)
	}
}

func TestCancelledScheduleNeverFires(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	srv := startServer(t, Config{Now: clock.Now})
	projectID, clipID := seededClip(t, srv, []byte("render"))
	account := connect(t, srv, DevOrgID, "YOUTUBE", "")
	c := devAPIClient(t, srv)
	cancelled, err := c.CreatePublishSchedule(t.Context(), scheduleBody(projectID, clipID, account, clock.Now().Add(time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	witness, err := c.CreatePublishSchedule(t.Context(), scheduleBody(projectID, clipID, account, clock.Now().Add(2*time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	raw := newClient(t, srv, devKey)
	resp, data := raw.do(http.MethodDelete, "/api/publish-schedules/"+cancelled, nil)
	if resp.StatusCode != http.StatusOK || decode[apitypes.Envelope[string]](t, data).Data != cancelled {
		t.Fatalf("cancel: %d %s, want 200 {data: %q}", resp.StatusCode, data, cancelled)
	}
	resp, data = raw.do(http.MethodDelete, "/api/publish-schedules/"+cancelled, nil)
	wantError(t, resp, data, http.StatusNotFound, "Not Found", cancelled)

	clock.Advance(3 * time.Hour)
	// The witness was due after the cancelled one: once it fired, the
	// cancelled one had its turn.
	witnessPost := firedPost(t, srv, witness)
	publishedPost(t, srv, account, witnessPost)
	sc, err := srv.store.GetSchedule(t.Context(), cancelled)
	if err != nil || sc.Status != store.ScheduleCancelled || sc.PostID != "" {
		t.Fatalf("cancelled schedule = %+v %v", sc, err)
	}
	if ids := publishedIDs(t, srv, account); len(ids) != 1 || ids[0] != witnessPost {
		t.Fatalf("published %v, want only the witness's post %s", ids, witnessPost)
	}
	// A fired schedule cannot be cancelled either.
	resp, data = raw.do(http.MethodDelete, "/api/publish-schedules/"+witness, nil)
	wantError(t, resp, data, http.StatusNotFound, "Not Found", witness)
}

// A schedule that came due while the server was down fires on start, once:
// the next start does not fire it again.
func TestScheduleDueDuringDowntimeFiresOnceOnStart(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	dir := t.TempDir()
	first := startServer(t, Config{DataDir: dir, Now: clock.Now})
	projectID, clipID := seededClip(t, first, []byte("render"))
	account := connect(t, first, DevOrgID, "LINKEDIN", "urn:li:person:1")
	body := func(at time.Time) apitypes.PublishScheduleRequest {
		b := scheduleBody(projectID, clipID, account, at)
		b.SubAccountID = "urn:li:person:1"
		return b
	}
	scheduleID, err := devAPIClient(t, first).CreatePublishSchedule(t.Context(), body(clock.Now().Add(time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	clock.Advance(24 * time.Hour) // down for a day
	second := startServer(t, Config{DataDir: dir, Now: clock.Now})
	postID := firedPost(t, second, scheduleID)
	if doc := publishedPost(t, second, account, postID); doc.ScheduleID != scheduleID {
		t.Fatalf("post.json = %+v, want schedule %s", doc, scheduleID)
	}
	if err := second.Close(); err != nil {
		t.Fatal(err)
	}

	third := startServer(t, Config{DataDir: dir, Now: clock.Now})
	witness, err := devAPIClient(t, third).CreatePublishSchedule(t.Context(), body(clock.Now().Add(time.Minute)))
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	publishedPost(t, third, account, firedPost(t, third, witness))
	if sc, _ := third.store.GetSchedule(t.Context(), scheduleID); sc.PostID != postID {
		t.Fatalf("schedule %s now has post %s, want still %s", scheduleID, sc.PostID, postID)
	}
	if ids := publishedIDs(t, third, account); len(ids) != 2 {
		t.Fatalf("published %v, want the schedule's post and the witness's", ids)
	}
}

// A TWITTER post costs a credit when it is made; once the month's credits
// are spent, a post task is refused with the monthly cap's 403, and a
// TWITTER schedule that fires makes a failed post that is not published.
func TestTwitterPostSpendsACreditAndTheCapRefusesIt(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	srv := startServer(t, Config{Now: clock.Now, Limits: quota.Limits{MonthlyCredits: 2}})
	projectID, clipID := seededClip(t, srv, []byte("render"))
	twitter := connect(t, srv, DevOrgID, "TWITTER", "")
	youtube := connect(t, srv, DevOrgID, "YOUTUBE", "")
	c := devAPIClient(t, srv)
	used := func() int64 {
		n, err := srv.store.CreditsUsed(t.Context(), DevOrgID)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	if _, err := c.CreatePostTask(t.Context(), postBody(projectID, clipID, youtube)); err != nil || used() != 0 {
		t.Fatalf("a YOUTUBE post: %v, %d credits used; want free", err, used())
	}
	scheduleID, err := c.CreatePublishSchedule(t.Context(), scheduleBody(projectID, clipID, twitter, clock.Now().Add(time.Hour)))
	if err != nil || used() != 0 {
		t.Fatalf("a TWITTER schedule: %v, %d credits used; want none until it fires", err, used())
	}
	postID, err := c.CreatePostTask(t.Context(), postBody(projectID, clipID, twitter))
	if err != nil || used() != 1 {
		t.Fatalf("a TWITTER post: %v, %d credits used; want 1", err, used())
	}
	publishedPost(t, srv, twitter, postID)
	if _, err := c.CreatePostTask(t.Context(), postBody(projectID, clipID, twitter)); err != nil || used() != 2 {
		t.Fatalf("the second TWITTER post: %v, %d credits used; want 2", err, used())
	}

	raw := newClient(t, srv, devKey)
	resp, data := raw.do(http.MethodPost, "/api/post-tasks", postBody(projectID, clipID, twitter))
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a TWITTER post past the cap: %d %s, want 403", resp.StatusCode, data)
	}
	capBody := decode[apitypes.MonthlyCapBody](t, data)
	if capBody.Code != apitypes.CodeMonthlyCap || capBody.ResetAt != "2030-04-01T00:00:00Z" || capBody.UpgradeURL != srv.URL()+"/upgrade" {
		t.Errorf("403 body = %s", data)
	}
	var capErr *client.MonthlyCapError
	if _, err := c.CreatePostTask(t.Context(), postBody(projectID, clipID, twitter)); !errors.As(err, &capErr) {
		t.Errorf("the client's error past the cap = %v, want a MonthlyCapError", err)
	}
	if _, err := c.CreatePostTask(t.Context(), postBody(projectID, clipID, youtube)); err != nil {
		t.Errorf("a free post past the cap: %v", err)
	}

	clock.Advance(time.Hour)
	refused, err := srv.store.GetPost(t.Context(), firedPost(t, srv, scheduleID))
	if err != nil || refused.Status != store.PostFailed || refused.CreditsCharged != 0 || used() != 2 {
		t.Fatalf("the TWITTER schedule fired past the cap: %+v %v, %d credits used; want a failed post and 2", refused, err, used())
	}
	for _, id := range publishedIDs(t, srv, twitter) {
		if id == refused.ID {
			t.Fatal("the refused post was published")
		}
	}
}

func TestPostingRefusesBadBodiesAndOtherOrgs(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{})
	projectID, clipID := seededClip(t, srv, []byte("render"))
	page := connect(t, srv, DevOrgID, "FACEBOOK_PAGE", "page-1")
	otherKey, err := srv.store.CreateKey(t.Context(), "org-other", "user-other")
	if err != nil {
		t.Fatal(err)
	}
	otherAccount := connect(t, srv, "org-other", "YOUTUBE", "")
	mine, other := newClient(t, srv, devKey), newClient(t, srv, otherKey)

	good := func() apitypes.PublishScheduleRequest {
		b := scheduleBody(projectID, clipID, page, time.Now().Add(time.Hour))
		b.SubAccountID = "page-1"
		return b
	}
	for _, tc := range []struct {
		name   string
		change func(*apitypes.PublishScheduleRequest)
		field  string
	}{
		{"no projectId", func(b *apitypes.PublishScheduleRequest) { b.ProjectID = " " }, "projectId: is required"},
		{"no clipId", func(b *apitypes.PublishScheduleRequest) { b.ClipID = "" }, "clipId: is required"},
		{"composite clipId", func(b *apitypes.PublishScheduleRequest) { b.ClipID = projectID + "." + clipID }, "clipId: must be the bare clip id"},
		{"no postAccountId", func(b *apitypes.PublishScheduleRequest) { b.PostAccountID = "" }, "postAccountId: is required"},
		{"blank title", func(b *apitypes.PublishScheduleRequest) { b.PostDetail.Title = "  " }, "postDetail.title: is required"},
		{"privacy", func(b *apitypes.PublishScheduleRequest) { b.PostDetail.Custom.Privacy = "friends" },
			`postDetail.custom.privacy: must be one of public, private, unlisted, not "friends"`},
		{"no subAccountId", func(b *apitypes.PublishScheduleRequest) { b.SubAccountID = "" }, `subAccountId: is required for account`},
		{"another subAccountId", func(b *apitypes.PublishScheduleRequest) { b.SubAccountID = "page-2" }, `not "page-2"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			post, sched := good(), good()
			tc.change(&post)
			tc.change(&sched)
			resp, data := mine.do(http.MethodPost, "/api/post-tasks", post.PostTaskRequest)
			wantError(t, resp, data, http.StatusBadRequest, "Bad Request", tc.field)
			resp, data = mine.do(http.MethodPost, "/api/publish-schedules", sched)
			wantError(t, resp, data, http.StatusBadRequest, "Bad Request", tc.field)
		})
	}
	for name, publishAt := range map[string]string{
		"past":      time.Now().Add(-time.Minute).UTC().Format(time.RFC3339),
		"not UTC":   time.Now().Add(time.Hour).In(time.FixedZone("CEST", 2*3600)).Format(time.RFC3339),
		"malformed": "next tuesday",
		"missing":   "",
	} {
		t.Run("publishAt "+name, func(t *testing.T) {
			b := good()
			b.PublishAt = publishAt
			resp, data := mine.do(http.MethodPost, "/api/publish-schedules", b)
			wantError(t, resp, data, http.StatusBadRequest, "Bad Request", "publishAt: must be")
		})
	}

	// What another org owns, or nobody, is not found.
	missing := []struct {
		name   string
		client *apiClient
		change func(*apitypes.PublishScheduleRequest)
		want   string
	}{
		{"another org's project", other, func(b *apitypes.PublishScheduleRequest) { b.PostAccountID = otherAccount }, "project"},
		{"an unknown clip", mine, func(b *apitypes.PublishScheduleRequest) { b.ClipID = "c99" }, `clip "c99" of project`},
		{"another org's account", mine, func(b *apitypes.PublishScheduleRequest) { b.PostAccountID = otherAccount }, "social account"},
		{"an unknown account", mine, func(b *apitypes.PublishScheduleRequest) { b.PostAccountID = "pa_nobody" }, "social account"},
	}
	for _, tc := range missing {
		t.Run(tc.name, func(t *testing.T) {
			b := good()
			tc.change(&b)
			resp, data := tc.client.do(http.MethodPost, "/api/post-tasks", b.PostTaskRequest)
			wantError(t, resp, data, http.StatusNotFound, "Not Found", tc.want)
			resp, data = tc.client.do(http.MethodPost, "/api/publish-schedules", b)
			wantError(t, resp, data, http.StatusNotFound, "Not Found", tc.want)
		})
	}
	resp, data := mine.do(http.MethodPost, "/api/publish-schedules", good())
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("a good schedule: %d %s", resp.StatusCode, data)
	}
	scheduleID := decode[apitypes.Envelope[apitypes.PublishSchedule]](t, data).Data.ScheduleID
	resp, data = other.do(http.MethodDelete, "/api/publish-schedules/"+scheduleID, nil)
	wantError(t, resp, data, http.StatusNotFound, "Not Found", scheduleID)
	resp, data = mine.do(http.MethodDelete, "/api/publish-schedules/sch_unknown", nil)
	wantError(t, resp, data, http.StatusNotFound, "Not Found", "sch_unknown")

	anonymous := newClient(t, srv, "")
	for _, route := range []struct{ method, path string }{
		{http.MethodPost, "/api/post-tasks"}, {http.MethodPost, "/api/publish-schedules"},
		{http.MethodDelete, "/api/publish-schedules/" + scheduleID},
	} {
		resp, data := anonymous.do(route.method, route.path, good())
		wantError(t, resp, data, http.StatusUnauthorized, "Unauthorized", "Authorization")
	}
	if sc, err := srv.store.GetSchedule(t.Context(), scheduleID); err != nil || sc.Status != store.SchedulePending {
		t.Fatalf("the schedule others tried to cancel: %+v %v, want pending", sc, err)
	}
}
