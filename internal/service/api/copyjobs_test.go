package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/copyjobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// send serves one request with the key (none when empty) and a body (none
// when empty).
func send(t *testing.T, h http.Handler, method, path, key, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequestWithContext(t.Context(), method, path, strings.NewReader(body))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// copyFixture is a handler over a store where org-a has project p1 with
// clip c01, a TWITTER account (no sub-account) and a FACEBOOK_PAGE account
// with page "page-1"; org-b has a project and an account of its own. The
// handler enqueues copy jobs in a job system that is not started, so they
// stay RUNNING.
type copyFixture struct {
	h                 http.Handler
	store             *store.Store
	key, otherKey     string
	jobs              *jobs.Jobs
	twitter, facebook apitypes.SocialAccount
	otherAccount      apitypes.SocialAccount
}

func newCopyFixture(t *testing.T) *copyFixture {
	t.Helper()
	st, key := keyedStore(t)
	ctx := t.Context()
	otherKey, err := st.CreateKey(ctx, "org-b", "user-b")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, p := range []*store.Project{
		{ID: "p1", OrgID: "org-a", Stage: apitypes.StageComplete, CreatedAt: now},
		{ID: "pb", OrgID: "org-b", Stage: apitypes.StageComplete, CreatedAt: now},
	} {
		if err := st.CreateProject(ctx, p, store.Admission{}); err != nil {
			t.Fatal(err)
		}
		if err := st.ReplaceClips(ctx, p.ID, p.OrgID, []store.Clip{{ID: p.ID + ".c01", CurationID: "c01", Title: "A clip", UpdatedAt: now}}); err != nil {
			t.Fatal(err)
		}
	}
	js, err := jobs.Open(ctx, jobs.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	copies, err := copyjobs.New(copyjobs.Config{Store: st, Jobs: js})
	if err != nil {
		t.Fatal(err)
	}
	f := &copyFixture{key: key, otherKey: otherKey, jobs: js, store: st}
	for _, a := range []struct {
		org  string
		into *apitypes.SocialAccount
		acct apitypes.SocialAccount
	}{
		{"org-a", &f.twitter, apitypes.SocialAccount{Platform: "TWITTER", ExtUserName: "me"}},
		{"org-a", &f.facebook, apitypes.SocialAccount{Platform: "FACEBOOK_PAGE", ExtUserName: "My page", SubAccountID: "page-1"}},
		{"org-b", &f.otherAccount, apitypes.SocialAccount{Platform: "TWITTER", ExtUserName: "them"}},
	} {
		if *a.into, err = st.ConnectSocialAccount(ctx, a.org, a.acct); err != nil {
			t.Fatal(err)
		}
	}
	f.h = New(Config{Store: st, CopyJobs: copies, Media: testMedia(t, t.TempDir()), PublicURL: "http://clipperd.test"})
	return f
}

// enqueued lists the copy job ids the job system holds jobs for, oldest
// first.
func (f *copyFixture) enqueued(t *testing.T) []string {
	t.Helper()
	recent, err := f.jobs.Recent(t.Context(), jobs.QueueCopy, 100)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, in := range slices.Backward(recent) {
		var args struct {
			ID string `json:"copy_job_id"`
		}
		if err := json.Unmarshal([]byte(in.Args), &args); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, args.ID)
	}
	return ids
}

func copyBody(projectID, clipID, accountID, subAccountID string) string {
	data, _ := json.Marshal(apitypes.SocialCopyJobRequest{ProjectID: projectID, ClipID: clipID, PostAccountID: accountID, SubAccountID: subAccountID})
	return string(data)
}

// TestCopyJobRunningUntilRun: a created job is handed to the worker and
// reads RUNNING, without copy, until the worker finishes it; another org
// cannot read it.
func TestCopyJobRunningUntilRun(t *testing.T) {
	t.Parallel()
	f := newCopyFixture(t)
	rec := send(t, f.h, http.MethodPost, "/api/social-copy-jobs", f.key, copyBody("p1", "c01", f.facebook.PostAccountID, "page-1"))
	if rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	var created apitypes.Envelope[apitypes.SocialCopyJobCreated]
	if err := json.Unmarshal(rec.Body.Bytes(), &created); err != nil || !strings.HasPrefix(created.Data.JobID, "scj_") {
		t.Fatalf("create answer %s: %v", rec.Body, err)
	}
	id := created.Data.JobID
	if got := f.enqueued(t); !slices.Equal(got, []string{id}) {
		t.Errorf("enqueued %v, want [%s]", got, id)
	}

	rec = send(t, f.h, http.MethodGet, "/api/social-copy-jobs/"+id, f.key, "")
	if want := `{"data":{"jobId":"` + id + `","status":"RUNNING"}}`; rec.Code != http.StatusOK || strings.TrimSpace(rec.Body.String()) != want {
		t.Errorf("get: %d %s, want 200 %s", rec.Code, rec.Body, want)
	}
	rec = send(t, f.h, http.MethodGet, "/api/social-copy-jobs/"+id, f.otherKey, "")
	wantAnswer(t, rec, http.StatusNotFound, errNotFound, `social copy job "`+id+`" not found`)
	rec = send(t, f.h, http.MethodGet, "/api/social-copy-jobs/"+id, "", "")
	wantAnswer(t, rec, http.StatusUnauthorized, errUnauthorized, "missing or malformed Authorization header")
}

// TestCopyJobRequestErrors: every refused request names the field or the
// resource, and creates no job.
func TestCopyJobRequestErrors(t *testing.T) {
	t.Parallel()
	f := newCopyFixture(t)
	tw, fb := f.twitter.PostAccountID, f.facebook.PostAccountID
	cases := []struct {
		name   string
		body   string
		status int
		want   string
	}{
		{"not JSON", `{"projectId":`, http.StatusBadRequest, "body: malformed JSON"},
		{"no projectId", copyBody("", "c01", tw, ""), http.StatusBadRequest, "projectId: is required"},
		{"no clipId", copyBody("p1", "", tw, ""), http.StatusBadRequest, "clipId: is required: the bare clip id"},
		{"composite clipId", copyBody("p1", "p1.c01", tw, ""), http.StatusBadRequest,
			`clipId: must be the bare clip id: the curationId of an exportable clip, the part after the dot of its id {projectId}.{curationId}, not the composite id "p1.c01"`},
		{"no postAccountId", copyBody("p1", "c01", "", ""), http.StatusBadRequest, "postAccountId: is required"},
		{"forceRegenerate not a boolean", `{"projectId":"p1","clipId":"c01","postAccountId":"` + tw + `","forceRegenerate":"yes"}`,
			http.StatusBadRequest, "forceRegenerate: must be a boolean"},
		{"sub-account missing", copyBody("p1", "c01", fb, ""), http.StatusBadRequest,
			`subAccountId: is required for account "` + fb + `" (FACEBOOK_PAGE): its subAccountId is "page-1"`},
		{"another sub-account", copyBody("p1", "c01", fb, "page-2"), http.StatusBadRequest,
			`subAccountId: must be "page-1", the sub-account of account "` + fb + `", not "page-2"`},
		{"a sub-account where there is none", copyBody("p1", "c01", tw, "x"), http.StatusBadRequest,
			`subAccountId: must be empty: account "` + tw + `" (TWITTER) has no sub-account, not "x"`},
		{"unknown project", copyBody("nope", "c01", tw, ""), http.StatusNotFound, `project "nope" not found`},
		{"another org's project", copyBody("pb", "c01", tw, ""), http.StatusNotFound, `project "pb" not found`},
		{"unknown clip", copyBody("p1", "c09", tw, ""), http.StatusNotFound, `clip "c09" of project "p1" not found`},
		{"unknown account", copyBody("p1", "c01", "pa_nope", ""), http.StatusNotFound, `postAccountId: social account "pa_nope" not found`},
		{"another org's account", copyBody("p1", "c01", f.otherAccount.PostAccountID, ""), http.StatusNotFound,
			`postAccountId: social account "` + f.otherAccount.PostAccountID + `" not found`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantAnswer(t, send(t, f.h, http.MethodPost, "/api/social-copy-jobs", f.key, c.body), c.status, map[int]string{
				http.StatusBadRequest: errBadRequest, http.StatusNotFound: errNotFound,
			}[c.status], c.want)
		})
	}
	if got := f.enqueued(t); len(got) != 0 {
		t.Errorf("refused requests enqueued jobs %v", got)
	}
	wantAnswer(t, send(t, f.h, http.MethodPost, "/api/social-copy-jobs", "", copyBody("p1", "c01", tw, "")),
		http.StatusUnauthorized, errUnauthorized, "missing or malformed Authorization header")
	wantAnswer(t, send(t, f.h, http.MethodGet, "/api/social-copy-jobs/scj_nope", f.key, ""),
		http.StatusNotFound, errNotFound, `social copy job "scj_nope" not found`)
}

// wantAnswer checks an error answer: status, errorName and the start of
// errorMessage.
func wantAnswer(t *testing.T, rec *httptest.ResponseRecorder, status int, name, msg string) {
	t.Helper()
	var body apitypes.ErrorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("answer %d %q is not an error body: %v", rec.Code, rec.Body, err)
	}
	if rec.Code != status || body.ErrorName != name || body.ErrorMessage == nil || !strings.HasPrefix(*body.ErrorMessage, msg) {
		t.Errorf("answer %d %s, want %d %s %q", rec.Code, rec.Body, status, name, msg)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want JSON", ct)
	}
}
