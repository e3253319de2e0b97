package api_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// The fuzz targets of every JSON request body of the API. Each sends the
// fuzzed body through the real handler with a valid key and checks: no
// panic, never a 5xx, a 4xx is a JSON error body naming a field of the
// request or the body (checkAnswer), and an accepted body round-trips: what
// it created reads back, and its canonical form (decoded into the API type
// and encoded again) is answered the same. Seeds are in
// testdata/fuzz/<target>; `make fuzz-short` runs each target briefly.

// FuzzCreateProject fuzzes POST /api/clip-projects.
func FuzzCreateProject(f *testing.F) {
	srv := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, body string) {
		rec, ok := post[apitypes.CreateProjectRequest](t, srv, "/api/clip-projects", body)
		if !ok {
			return
		}
		p := decodeAnswer[apitypes.Project](t, rec)
		got := srv.serve(t, http.MethodGet, "/api/clip-projects/"+url.PathEscape(p.ID), "")
		if got.Code != http.StatusOK || !sameJSON(t, got.Body.Bytes(), rec.Body.Bytes()) {
			t.Fatalf("body %q created %s\nwhich reads back %d %s", body, rec.Body, got.Code, got.Body)
		}
		canon := canonical[apitypes.CreateProjectRequest](t, body)
		again, _ := post[apitypes.CreateProjectRequest](t, srv, "/api/clip-projects", canon)
		sameAnswer(t, body, canon, rec, again)
	})
}

// FuzzUpdateVisibility fuzzes POST /api/clip-projects/{id}/update-visibility.
func FuzzUpdateVisibility(f *testing.F) {
	srv := newFuzzServer(f)
	const path = "/api/clip-projects/p1/update-visibility"
	f.Fuzz(func(t *testing.T, body string) {
		rec, ok := post[apitypes.UpdateVisibilityRequest](t, srv, path, body)
		if !ok {
			return
		}
		canon := canonical[apitypes.UpdateVisibilityRequest](t, body)
		want := decodeBytes[apitypes.UpdateVisibilityRequest](t, []byte(canon)).Visibility
		if p := decodeAnswer[apitypes.Project](t, rec); p.Visibility != want {
			t.Fatalf("body %q set visibility %q, want %q", body, p.Visibility, want)
		}
		got := srv.serve(t, http.MethodGet, "/api/clip-projects/p1", "")
		if got.Code != http.StatusOK || !sameJSON(t, got.Body.Bytes(), rec.Body.Bytes()) {
			t.Fatalf("body %q answered %s\nwhich reads back %d %s", body, rec.Body, got.Code, got.Body)
		}
		again, _ := post[apitypes.UpdateVisibilityRequest](t, srv, path, canon)
		sameAnswer(t, body, canon, rec, again)
	})
}

// FuzzCreateUploadLink fuzzes POST /api/upload-links: an accepted body's
// link opens a resumable session.
func FuzzCreateUploadLink(f *testing.F) {
	srv := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, body string) {
		rec, ok := post[apitypes.UploadLinkRequest](t, srv, "/api/upload-links", body)
		if !ok {
			return
		}
		link := decodeAnswer[apitypes.Envelope[apitypes.UploadLink]](t, rec).Data
		u, err := url.Parse(link.URL)
		if err != nil {
			t.Fatalf("body %q: upload link %q: %v", body, link.URL, err)
		}
		req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, u.Path, nil)
		req.Header.Set(apitypes.HeaderResumable, "start")
		start := httptest.NewRecorder()
		srv.h.ServeHTTP(start, req)
		if start.Code != http.StatusCreated {
			t.Fatalf("body %q: starting upload %s: %d %s", body, link.URL, start.Code, start.Body)
		}
		canon := canonical[apitypes.UploadLinkRequest](t, body)
		again, _ := post[apitypes.UploadLinkRequest](t, srv, "/api/upload-links", canon)
		sameAnswer(t, body, canon, rec, again)
	})
}

// FuzzCreateCollection fuzzes POST /api/collections: an accepted body's
// collection is listed; it is deleted again so the list stays short.
func FuzzCreateCollection(f *testing.F) {
	srv := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, body string) {
		rec, ok := post[apitypes.CreateCollectionRequest](t, srv, "/api/collections", body)
		if !ok {
			return
		}
		created := srv.collectionListed(t, body, rec)
		canon := canonical[apitypes.CreateCollectionRequest](t, body)
		again, ok := post[apitypes.CreateCollectionRequest](t, srv, "/api/collections", canon)
		if ok {
			srv.collectionListed(t, canon, again)
		}
		sameAnswer(t, body, canon, rec, again)
		if created.CollectionName == "" {
			t.Fatalf("body %q created a collection without a name", body)
		}
	})
}

// collectionListed checks that the collection rec created is in the list
// with its name, then deletes it.
func (srv *fuzzServer) collectionListed(t *testing.T, body string, rec *httptest.ResponseRecorder) apitypes.Collection {
	t.Helper()
	c := decodeAnswer[apitypes.Envelope[apitypes.Collection]](t, rec).Data
	list := srv.serve(t, http.MethodGet, "/api/collections?q=mine&limit=100", "")
	page := decodeAnswer[apitypes.Envelope[apitypes.CollectionPage]](t, list).Data
	if !slices.Contains(page.List, c) {
		t.Fatalf("body %q created %+v; the list holds %+v", body, c, page.List)
	}
	if del := srv.serve(t, http.MethodDelete, "/api/collections/"+url.PathEscape(c.CollectionID), ""); del.Code != http.StatusOK {
		t.Fatalf("deleting collection %q: %d %s", c.CollectionID, del.Code, del.Body)
	}
	return c
}

// collectionPlaceholder in a fuzzed body stands for the fixture's
// collection id, which the store makes at random.
const collectionPlaceholder = "$COLLECTION"

// FuzzAddCollectionContent fuzzes POST /api/collection-contents: an
// accepted clip is in the collection's export; it is removed again.
func FuzzAddCollectionContent(f *testing.F) {
	srv := newFuzzServer(f)
	const path = "/api/collection-contents"
	f.Fuzz(func(t *testing.T, body string) {
		body = strings.ReplaceAll(body, collectionPlaceholder, srv.collectionID)
		rec, ok := post[apitypes.CollectionContent](t, srv, path, body)
		if !ok {
			return
		}
		added := decodeAnswer[apitypes.Envelope[apitypes.CollectionContent]](t, rec).Data
		if !srv.exports(t, added) {
			t.Fatalf("body %q added %+v, which the export does not list", body, added)
		}
		srv.removeContent(t, added)
		canon := canonical[apitypes.CollectionContent](t, body)
		again, _ := post[apitypes.CollectionContent](t, srv, path, canon)
		sameAnswer(t, body, canon, rec, again)
		srv.removeContent(t, added)
	})
}

// FuzzDeleteCollectionContent fuzzes POST
// /api/collection-contents/delete-collection-contents, with clip p1.c01 in
// the fixture's collection before each body: an accepted body removes what
// it names.
func FuzzDeleteCollectionContent(f *testing.F) {
	srv := newFuzzServer(f)
	const path = "/api/collection-contents/delete-collection-contents"
	f.Fuzz(func(t *testing.T, body string) {
		body = strings.ReplaceAll(body, collectionPlaceholder, srv.collectionID)
		clip := apitypes.CollectionContent{CollectionID: srv.collectionID, ContentID: "p1.c01"}
		srv.addContent(t, clip)
		rec, ok := post[apitypes.DeleteCollectionContentRequest](t, srv, path, body)
		if !ok {
			return
		}
		req := decodeBytes[apitypes.DeleteCollectionContentRequest](t, []byte(body))
		if srv.exports(t, apitypes.CollectionContent{CollectionID: req.CollectionID, ContentID: req.ContentID}) {
			t.Fatalf("body %q was accepted, yet the export still lists %s", body, req.ContentID)
		}
		srv.addContent(t, clip)
		canon := canonical[apitypes.DeleteCollectionContentRequest](t, body)
		again, _ := post[apitypes.DeleteCollectionContentRequest](t, srv, path, canon)
		sameAnswer(t, body, canon, rec, again)
	})
}

// FuzzExportCollection fuzzes the body of POST
// /api/collections/{id}/export, which must be empty or a JSON object: an
// accepted one is answered like `{}`.
func FuzzExportCollection(f *testing.F) {
	srv := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, body string) {
		path := "/api/collections/" + srv.collectionID + "/export"
		// The export takes no fields: the body is checked against nothing
		// but its shape, so a 400 may only name the body.
		rec := srv.serve(t, http.MethodPost, path, body)
		checkAnswer(t, rec, nil, body)
		if rec.Code/100 != 2 {
			return
		}
		sameAnswer(t, body, "{}", rec, srv.serve(t, http.MethodPost, path, "{}"))
	})
}

// FuzzCreateCopyJob fuzzes POST /api/social-copy-jobs: an accepted job
// reads back.
func FuzzCreateCopyJob(f *testing.F) {
	srv := newFuzzServer(f)
	const path = "/api/social-copy-jobs"
	f.Fuzz(func(t *testing.T, body string) {
		rec, ok := post[apitypes.SocialCopyJobRequest](t, srv, path, body)
		if !ok {
			return
		}
		job := decodeAnswer[apitypes.Envelope[apitypes.SocialCopyJobCreated]](t, rec).Data
		got := srv.serve(t, http.MethodGet, "/api/social-copy-jobs/"+url.PathEscape(job.JobID), "")
		if got.Code != http.StatusOK || decodeAnswer[apitypes.Envelope[apitypes.SocialCopyJob]](t, got).Data.JobID != job.JobID {
			t.Fatalf("body %q created job %q, which reads back %d %s", body, job.JobID, got.Code, got.Body)
		}
		canon := canonical[apitypes.SocialCopyJobRequest](t, body)
		again, _ := post[apitypes.SocialCopyJobRequest](t, srv, path, canon)
		sameAnswer(t, body, canon, rec, again)
	})
}

// FuzzCreateCensorJob fuzzes POST /api/censor-jobs: an accepted job reads
// back.
func FuzzCreateCensorJob(f *testing.F) {
	srv := newFuzzServer(f)
	const path = "/api/censor-jobs"
	f.Fuzz(func(t *testing.T, body string) {
		rec, ok := post[apitypes.CensorJobRequest](t, srv, path, body)
		if !ok {
			return
		}
		job := decodeAnswer[apitypes.CensorJob](t, rec)
		if got := srv.serve(t, http.MethodGet, "/api/censor-jobs/"+url.PathEscape(job.JobID), ""); got.Code != http.StatusOK {
			t.Fatalf("body %q created job %q, which reads back %d %s", body, job.JobID, got.Code, got.Body)
		}
		canon := canonical[apitypes.CensorJobRequest](t, body)
		again, _ := post[apitypes.CensorJobRequest](t, srv, path, canon)
		sameAnswer(t, body, canon, rec, again)
	})
}

// FuzzCreatePostTask fuzzes POST /api/post-tasks.
func FuzzCreatePostTask(f *testing.F) {
	srv := newFuzzServer(f)
	const path = "/api/post-tasks"
	f.Fuzz(func(t *testing.T, body string) {
		rec, ok := post[apitypes.PostTaskRequest](t, srv, path, body)
		if !ok {
			return
		}
		if decodeAnswer[apitypes.Envelope[apitypes.PostTask]](t, rec).Data.PostID == "" {
			t.Fatalf("body %q was accepted without a postId: %s", body, rec.Body)
		}
		canon := canonical[apitypes.PostTaskRequest](t, body)
		again, _ := post[apitypes.PostTaskRequest](t, srv, path, canon)
		sameAnswer(t, body, canon, rec, again)
	})
}

// FuzzCreatePublishSchedule fuzzes POST /api/publish-schedules: an
// accepted schedule is pending, which its cancellation proves.
func FuzzCreatePublishSchedule(f *testing.F) {
	srv := newFuzzServer(f)
	const path = "/api/publish-schedules"
	cancel := func(t *testing.T, body string, rec *httptest.ResponseRecorder) {
		t.Helper()
		id := decodeAnswer[apitypes.Envelope[apitypes.PublishSchedule]](t, rec).Data.ScheduleID
		if del := srv.serve(t, http.MethodDelete, "/api/publish-schedules/"+url.PathEscape(id), ""); del.Code != http.StatusOK {
			t.Fatalf("body %q created schedule %q, which cannot be cancelled: %d %s", body, id, del.Code, del.Body)
		}
	}
	f.Fuzz(func(t *testing.T, body string) {
		rec, ok := post[apitypes.PublishScheduleRequest](t, srv, path, body)
		if !ok {
			return
		}
		cancel(t, body, rec)
		canon := canonical[apitypes.PublishScheduleRequest](t, body)
		again, ok := post[apitypes.PublishScheduleRequest](t, srv, path, canon)
		if ok {
			cancel(t, canon, again)
		}
		sameAnswer(t, body, canon, rec, again)
	})
}
