package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

func TestNewValidatesConfig(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"missing key", Config{}, "api_key must not be empty"},
		{"relative url", Config{APIKey: "k", BaseURL: "localhost:8787"}, "base_url"},
		{"ftp url", Config{APIKey: "k", BaseURL: "ftp://host"}, "http or https"},
		{"negative rpm", Config{APIKey: "k", RequestsPerMinute: -1}, "requests_per_minute"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New(%+v) error = %v, want it to mention %q", tc.cfg, err, tc.want)
			}
		})
	}
	c, err := New(Config{APIKey: "k", BaseURL: "http://example.test/base/"})
	if err != nil {
		t.Fatalf("New with trailing slash: %v", err)
	}
	if c.baseURL != "http://example.test/base" || c.userAgent != DefaultUserAgent {
		t.Fatalf("defaults not applied: base %q ua %q", c.baseURL, c.userAgent)
	}
	d, err := New(Config{APIKey: "k"})
	if err != nil || d.baseURL != DefaultBaseURL {
		t.Fatalf("default base url: %v %q", err, d.baseURL)
	}
}

func TestHeaders(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		if r.Method == http.MethodGet {
			writeJSON(w, 200, map[string]any{"data": apitypes.CollectionPage{List: []apitypes.Collection{}}})
			return
		}
		writeJSON(w, 200, map[string]any{"data": apitypes.Collection{CollectionID: "c1", CollectionName: "n"}})
	}))
	defer srv.Close()

	c := newTestClient(t, srv.URL+"/", func(cfg *Config) { cfg.OrgID = "org-7"; cfg.UserAgent = "ua-test/1" })
	if _, err := c.CreateCollection(context.Background(), "n"); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Authorization": "Bearer " + testKey(t),
		"X-Svc-Org-Id":  "org-7",
		"User-Agent":    "ua-test/1",
		"Accept":        "application/json",
		"Content-Type":  "application/json",
	}
	for k, v := range want {
		if got.Get(k) != v {
			t.Errorf("header %s = %q, want %q", k, got.Get(k), v)
		}
	}

	c2 := newTestClient(t, srv.URL, nil)
	if _, err := c2.ListCollections(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if got.Get("X-Svc-Org-Id") != "" {
		t.Errorf("x-svc-org-id sent without OrgID: %q", got.Get("X-Svc-Org-Id"))
	}
	if got.Get("Content-Type") != "" {
		t.Errorf("Content-Type sent on a GET without body: %q", got.Get("Content-Type"))
	}
}

// TestEndpoints checks every method's path, verb, body and envelope against a
// fake of the service.
func TestEndpoints(t *testing.T) {
	project := apitypes.Project{ID: "p1", ProjectID: "p1", Stage: apitypes.StageQueued, Visibility: "DEFAULT"}
	type route struct {
		wantBody string // exact JSON body expected, "" for none
		status   int
		answer   any
	}
	routes := map[string]route{
		"POST /api/clip-projects":                                  {`{"videoUrl":"https://v.test/a.mp4","curationPref":{"model":"ClipBasic"}}`, 201, project},
		"GET /api/clip-projects/p1":                                {"", 200, project},
		"POST /api/clip-projects/p1/update-visibility":             {`{"visibility":"PUBLIC"}`, 200, project},
		"GET /api/brand-templates?q=mine":                          {"", 200, []apitypes.BrandTemplate{{TemplateID: "preset-fancy-Karaoke", Name: "Karaoke"}}},
		"POST /api/upload-links":                                   {`{"video":{"usecase":"LocalUpload"}}`, 200, map[string]any{"data": apitypes.UploadLink{URL: "http://s.test/u", UploadID: "up1"}}},
		"POST /api/collections":                                    {`{"collectionName":"best"}`, 200, map[string]any{"data": apitypes.Collection{CollectionID: "c1", CollectionName: "best"}}},
		"DELETE /api/collections/c1":                               {"", 200, map[string]any{"data": "c1"}},
		"POST /api/collections/c1/export":                          {`{}`, 200, map[string]any{"data": apitypes.ExportedCollection{ContentList: []apitypes.ExportedContent{{ContentID: "p1.k1", URIForExport: "http://x"}}}}},
		"POST /api/collection-contents":                            {`{"collectionId":"c1","contentId":"p1.k1"}`, 200, map[string]any{"data": apitypes.CollectionContent{CollectionID: "c1", ContentID: "p1.k1"}}},
		"POST /api/collection-contents/delete-collection-contents": {`{"q":"findByCollectionIdAndContentId","collectionId":"c1","contentId":"p1.k1"}`, 200, map[string]any{"data": "success"}},
		"POST /api/censor-jobs":                                    {`{"projectId":"p1","clipId":"k1","options":{"beepSound":true}}`, 201, apitypes.CensorJob{JobID: "cj1", Message: "queued"}},
		"GET /api/censor-jobs/cj1":                                 {"", 200, apitypes.CensorJobStatus{Status: apitypes.CensorConcluded}},
		"GET /api/social-accounts?q=mine":                          {"", 200, map[string]any{"data": []apitypes.SocialAccount{{PostAccountID: "a1", Platform: "YOUTUBE"}}}},
		"POST /api/social-copy-jobs":                               {`{"projectId":"p1","clipId":"k1","postAccountId":"a1","subAccountId":"s1"}`, 201, map[string]any{"data": map[string]string{"jobId": "sj1"}}},
		"GET /api/social-copy-jobs/sj1":                            {"", 200, map[string]any{"data": apitypes.SocialCopyJob{JobID: "sj1", Status: apitypes.CopyCompleted, Title: "t"}}},
		"POST /api/post-tasks":                                     {`{"projectId":"p1","clipId":"k1","postAccountId":"a1","postDetail":{"title":"hello"}}`, 201, map[string]any{"data": map[string]string{"postId": "post1"}}},
		"POST /api/publish-schedules":                              {`{"projectId":"p1","clipId":"k1","postAccountId":"a1","postDetail":{"title":"hello"},"publishAt":"2030-01-01T00:00:00Z"}`, 201, map[string]any{"data": map[string]string{"scheduleId": "sch1"}}},
		"DELETE /api/publish-schedules/sch1":                       {"", 200, map[string]any{"data": "sch1"}},
	}
	seen := &counter{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Method + " " + r.URL.RequestURI()
		rt, ok := routes[key]
		if !ok {
			t.Errorf("unexpected request %s", key)
			writeJSON(w, 404, apitypes.ErrorBody{ErrorName: "Not Found"})
			return
		}
		seen.inc(key)
		body, _ := io.ReadAll(r.Body)
		if string(body) != rt.wantBody {
			t.Errorf("%s body = %s, want %s", key, body, rt.wantBody)
		}
		writeJSON(w, rt.status, rt.answer)
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, nil)
	ctx := context.Background()
	check := func(what string, err error, ok bool) {
		t.Helper()
		if err != nil || !ok {
			t.Errorf("%s: err %v, ok %v", what, err, ok)
		}
	}

	p, err := c.CreateProject(ctx, apitypes.CreateProjectRequest{VideoURL: "https://v.test/a.mp4", CurationPref: &apitypes.CurationPref{Model: apitypes.ModelClipBasic}})
	check("CreateProject", err, p != nil && p.ID == "p1")
	p, err = c.GetProject(ctx, "p1")
	check("GetProject", err, p != nil && p.Stage == apitypes.StageQueued)
	p, err = c.UpdateProjectVisibility(ctx, "p1", "PUBLIC")
	check("UpdateProjectVisibility", err, p != nil)
	bt, err := c.ListBrandTemplates(ctx)
	check("ListBrandTemplates", err, len(bt) == 1 && bt[0].TemplateID == "preset-fancy-Karaoke")
	ul, err := c.CreateUploadLink(ctx)
	check("CreateUploadLink", err, ul != nil && ul.UploadID == "up1")
	col, err := c.CreateCollection(ctx, "best")
	check("CreateCollection", err, col != nil && col.CollectionID == "c1")
	check("DeleteCollection", c.DeleteCollection(ctx, "c1"), true)
	ex, err := c.ExportCollection(ctx, "c1")
	check("ExportCollection", err, ex != nil && len(ex.ContentList) == 1)
	cc, err := c.AddCollectionContent(ctx, "c1", "p1.k1")
	check("AddCollectionContent", err, cc != nil && cc.ContentID == "p1.k1")
	check("DeleteCollectionContent", c.DeleteCollectionContent(ctx, "c1", "p1.k1"), true)
	cj, err := c.CreateCensorJob(ctx, apitypes.CensorJobRequest{ProjectID: "p1", ClipID: "k1", Options: apitypes.CensorOptions{BeepSound: true}})
	check("CreateCensorJob", err, cj != nil && cj.JobID == "cj1")
	cs, err := c.GetCensorJob(ctx, "cj1", "p1")
	check("GetCensorJob", err, cs != nil && cs.Status == apitypes.CensorConcluded)
	sa, err := c.ListSocialAccounts(ctx)
	check("ListSocialAccounts", err, len(sa) == 1 && sa[0].PostAccountID == "a1")
	jid, err := c.CreateSocialCopyJob(ctx, apitypes.SocialCopyJobRequest{ProjectID: "p1", ClipID: "k1", PostAccountID: "a1", SubAccountID: "s1"})
	check("CreateSocialCopyJob", err, jid == "sj1")
	sj, err := c.GetSocialCopyJob(ctx, "sj1")
	check("GetSocialCopyJob", err, sj != nil && sj.Title == "t")
	post := apitypes.PostTaskRequest{ProjectID: "p1", ClipID: "k1", PostAccountID: "a1", PostDetail: apitypes.PostDetail{Title: "hello"}}
	pid, err := c.CreatePostTask(ctx, post)
	check("CreatePostTask", err, pid == "post1")
	sid, err := c.CreatePublishSchedule(ctx, apitypes.PublishScheduleRequest{PostTaskRequest: post, PublishAt: "2030-01-01T00:00:00Z"})
	check("CreatePublishSchedule", err, sid == "sch1")
	check("DeletePublishSchedule", c.DeletePublishSchedule(ctx, "sch1"), true)

	for key := range routes {
		if seen.get(key) != 1 {
			t.Errorf("%s called %d times, want 1", key, seen.get(key))
		}
	}
}

func TestArgumentErrorsNameTheField(t *testing.T) {
	c := newTestClient(t, "http://127.0.0.1:1", nil)
	ctx := context.Background()
	cases := map[string]error{
		"videoUrl":   func() error { _, err := c.CreateProject(ctx, apitypes.CreateProjectRequest{}); return err }(),
		"project id": func() error { _, err := c.GetProject(ctx, ""); return err }(),
		"exactly one": func() error {
			_, err := c.ListExportableClips(ctx, ClipFilter{ProjectID: "a", CollectionID: "b"})
			return err
		}(),
		"postDetail.title": func() error {
			_, err := c.CreatePostTask(ctx, apitypes.PostTaskRequest{ProjectID: "p", ClipID: "c", PostAccountID: "a"})
			return err
		}(),
		"publishAt": func() error {
			_, err := c.CreatePublishSchedule(ctx, apitypes.PublishScheduleRequest{PostTaskRequest: apitypes.PostTaskRequest{ProjectID: "p", ClipID: "c", PostAccountID: "a", PostDetail: apitypes.PostDetail{Title: "t"}}})
			return err
		}(),
	}
	for want, err := range cases {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not name %q", err, want)
		}
	}
	if c.Stats().Requests != 0 {
		t.Errorf("invalid arguments reached the network: %d requests", c.Stats().Requests)
	}
}

// An account without a sub-account has none to name: the copy job is sent
// with "subAccountId":"", the field the spec requires in the body, while the
// ids the job cannot do without are still refused before the network.
func TestSocialCopyJobWithoutSubAccount(t *testing.T) {
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		writeJSON(w, 201, map[string]any{"data": map[string]string{"jobId": "sj1"}})
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, nil)

	id, err := c.CreateSocialCopyJob(t.Context(), apitypes.SocialCopyJobRequest{ProjectID: "p1", ClipID: "k1", PostAccountID: "a1"})
	if err != nil || id != "sj1" {
		t.Fatalf("CreateSocialCopyJob without a sub-account: %q, %v", id, err)
	}
	if want := `{"projectId":"p1","clipId":"k1","postAccountId":"a1","subAccountId":""}`; body != want {
		t.Errorf("body = %s, want %s", body, want)
	}

	before := c.Stats().Requests
	for field, req := range map[string]apitypes.SocialCopyJobRequest{
		"projectId":     {ClipID: "k1", PostAccountID: "a1"},
		"clipId":        {ProjectID: "p1", PostAccountID: "a1"},
		"postAccountId": {ProjectID: "p1", ClipID: "k1", SubAccountID: "s1"},
	} {
		if _, err := c.CreateSocialCopyJob(t.Context(), req); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("a job without %s: error %v, want one naming it", field, err)
		}
	}
	if n := c.Stats().Requests - before; n != 0 {
		t.Errorf("jobs missing an id reached the network: %d requests", n)
	}
}

// TestEnvelopeWithoutData reports a clear error instead of a zero value.
func TestEnvelopeWithoutData(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"collectionId": "c1"})
	}))
	defer srv.Close()
	_, err := newTestClient(t, srv.URL, nil).CreateCollection(context.Background(), "n")
	if err == nil || !strings.Contains(err.Error(), `no "data"`) {
		t.Fatalf("err = %v, want a missing data error", err)
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		t.Fatalf("unexpected syntax error %v", err)
	}
}
