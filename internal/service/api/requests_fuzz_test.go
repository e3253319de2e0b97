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
// it did reads back, and its canonical form (decoded into the API type and
// encoded again) is answered the same. Seeds are in testdata/fuzz/<target>;
// `make fuzz-short` runs each target briefly.

// bodyTarget is one POST endpoint taking a JSON body.
type bodyTarget struct {
	path string
	// before sets up the state each body is sent to; nil = none.
	before func(t *testing.T)
	// accepted checks what an accepted body did (it reads back), then
	// undoes it where the next body needs the state as it was.
	accepted func(t *testing.T, body string, rec *httptest.ResponseRecorder)
}

// fuzzBodies fuzzes the bodies of target, requests of type T. In a body,
// collectionPlaceholder stands for the fixture's collection id.
func fuzzBodies[T any](f *testing.F, srv *fuzzServer, target bodyTarget) {
	before := func(t *testing.T) {
		if target.before != nil {
			target.before(t)
		}
	}
	f.Fuzz(func(t *testing.T, body string) {
		body = strings.ReplaceAll(body, collectionPlaceholder, srv.collectionID)
		before(t)
		rec, ok := post[T](t, srv, target.path, body)
		if !ok {
			return
		}
		target.accepted(t, body, rec)
		canon := canonical[T](t, body)
		before(t)
		again, ok := post[T](t, srv, target.path, canon)
		if ok {
			target.accepted(t, canon, again)
		}
		sameAnswer(t, body, canon, rec, again)
	})
}

// collectionPlaceholder in a fuzzed body stands for the fixture's
// collection id, which the store makes at random.
const collectionPlaceholder = "$COLLECTION"

// FuzzCreateProject fuzzes POST /api/clip-projects: an accepted project
// reads back as created.
func FuzzCreateProject(f *testing.F) {
	srv := newFuzzServer(f)
	fuzzBodies[apitypes.CreateProjectRequest](f, srv, bodyTarget{
		path: "/api/clip-projects",
		accepted: func(t *testing.T, body string, rec *httptest.ResponseRecorder) {
			p := decodeAnswer[apitypes.Project](t, rec)
			srv.readsBack(t, body, rec, "/api/clip-projects/"+url.PathEscape(p.ID))
		},
	})
}

// FuzzUpdateVisibility fuzzes POST /api/clip-projects/{id}/update-visibility:
// the project reads back with the visibility sent.
func FuzzUpdateVisibility(f *testing.F) {
	srv := newFuzzServer(f)
	fuzzBodies[apitypes.UpdateVisibilityRequest](f, srv, bodyTarget{
		path: "/api/clip-projects/p1/update-visibility",
		accepted: func(t *testing.T, body string, rec *httptest.ResponseRecorder) {
			want := decodeBytes[apitypes.UpdateVisibilityRequest](t, []byte(body)).Visibility
			if p := decodeAnswer[apitypes.Project](t, rec); p.Visibility != want {
				t.Fatalf("body %q set visibility %q, want %q", body, p.Visibility, want)
			}
			srv.readsBack(t, body, rec, "/api/clip-projects/p1")
		},
	})
}

// FuzzCreateUploadLink fuzzes POST /api/upload-links: an accepted body's
// link opens a resumable session.
func FuzzCreateUploadLink(f *testing.F) {
	srv := newFuzzServer(f)
	fuzzBodies[apitypes.UploadLinkRequest](f, srv, bodyTarget{
		path: "/api/upload-links",
		accepted: func(t *testing.T, body string, rec *httptest.ResponseRecorder) {
			link := decodeAnswer[apitypes.Envelope[apitypes.UploadLink]](t, rec).Data
			if _, err := srv.startUpload(t, link.URL); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
		},
	})
}

// FuzzCreateCollection fuzzes POST /api/collections: an accepted body's
// collection is listed with its name; it is deleted again so that the list
// stays short.
func FuzzCreateCollection(f *testing.F) {
	srv := newFuzzServer(f)
	fuzzBodies[apitypes.CreateCollectionRequest](f, srv, bodyTarget{
		path: "/api/collections",
		accepted: func(t *testing.T, body string, rec *httptest.ResponseRecorder) {
			c := decodeAnswer[apitypes.Envelope[apitypes.Collection]](t, rec).Data
			list := srv.serve(t, http.MethodGet, "/api/collections?q=mine&limit=100", "")
			page := decodeAnswer[apitypes.Envelope[apitypes.CollectionPage]](t, list).Data
			if c.CollectionName == "" || !slices.Contains(page.List, c) {
				t.Fatalf("body %q created %+v; the list holds %+v", body, c, page.List)
			}
			if del := srv.serve(t, http.MethodDelete, "/api/collections/"+url.PathEscape(c.CollectionID), ""); del.Code != http.StatusOK {
				t.Fatalf("deleting collection %q: %d %s", c.CollectionID, del.Code, del.Body)
			}
		},
	})
}

// FuzzAddCollectionContent fuzzes POST /api/collection-contents: an
// accepted clip is in the collection's export; it is removed again.
func FuzzAddCollectionContent(f *testing.F) {
	srv := newFuzzServer(f)
	fuzzBodies[apitypes.CollectionContent](f, srv, bodyTarget{
		path: "/api/collection-contents",
		accepted: func(t *testing.T, body string, rec *httptest.ResponseRecorder) {
			added := decodeAnswer[apitypes.Envelope[apitypes.CollectionContent]](t, rec).Data
			if !srv.exports(t, added) {
				t.Fatalf("body %q added %+v, which the export does not list", body, added)
			}
			srv.removeContent(t, added)
		},
	})
}

// FuzzDeleteCollectionContent fuzzes POST
// /api/collection-contents/delete-collection-contents, with clip p1.c01 in
// the fixture's collection before each body: an accepted body removes what
// it names.
func FuzzDeleteCollectionContent(f *testing.F) {
	srv := newFuzzServer(f)
	fuzzBodies[apitypes.DeleteCollectionContentRequest](f, srv, bodyTarget{
		path: "/api/collection-contents/delete-collection-contents",
		before: func(t *testing.T) {
			srv.addContent(t, apitypes.CollectionContent{CollectionID: srv.collectionID, ContentID: "p1.c01"})
		},
		accepted: func(t *testing.T, body string, _ *httptest.ResponseRecorder) {
			req := decodeBytes[apitypes.DeleteCollectionContentRequest](t, []byte(body))
			if srv.exports(t, apitypes.CollectionContent{CollectionID: req.CollectionID, ContentID: req.ContentID}) {
				t.Fatalf("body %q was accepted, yet the export still lists %s", body, req.ContentID)
			}
		},
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
	fuzzBodies[apitypes.SocialCopyJobRequest](f, srv, bodyTarget{
		path: "/api/social-copy-jobs",
		accepted: func(t *testing.T, body string, rec *httptest.ResponseRecorder) {
			job := decodeAnswer[apitypes.Envelope[apitypes.SocialCopyJobCreated]](t, rec).Data
			got := srv.serve(t, http.MethodGet, "/api/social-copy-jobs/"+url.PathEscape(job.JobID), "")
			if got.Code != http.StatusOK || decodeAnswer[apitypes.Envelope[apitypes.SocialCopyJob]](t, got).Data.JobID != job.JobID {
				t.Fatalf("body %q created job %q, which reads back %d %s", body, job.JobID, got.Code, got.Body)
			}
		},
	})
}

// FuzzCreateCensorJob fuzzes POST /api/censor-jobs: an accepted job reads
// back.
func FuzzCreateCensorJob(f *testing.F) {
	srv := newFuzzServer(f)
	fuzzBodies[apitypes.CensorJobRequest](f, srv, bodyTarget{
		path: "/api/censor-jobs",
		accepted: func(t *testing.T, body string, rec *httptest.ResponseRecorder) {
			job := decodeAnswer[apitypes.CensorJob](t, rec)
			if got := srv.serve(t, http.MethodGet, "/api/censor-jobs/"+url.PathEscape(job.JobID), ""); got.Code != http.StatusOK {
				t.Fatalf("body %q created job %q, which reads back %d %s", body, job.JobID, got.Code, got.Body)
			}
		},
	})
}

// FuzzCreatePostTask fuzzes POST /api/post-tasks: an accepted post has an
// id.
func FuzzCreatePostTask(f *testing.F) {
	srv := newFuzzServer(f)
	fuzzBodies[apitypes.PostTaskRequest](f, srv, bodyTarget{
		path: "/api/post-tasks",
		accepted: func(t *testing.T, body string, rec *httptest.ResponseRecorder) {
			if decodeAnswer[apitypes.Envelope[apitypes.PostTask]](t, rec).Data.PostID == "" {
				t.Fatalf("body %q was accepted without a postId: %s", body, rec.Body)
			}
		},
	})
}

// FuzzCreatePublishSchedule fuzzes POST /api/publish-schedules: an
// accepted schedule is pending, which its cancellation proves.
func FuzzCreatePublishSchedule(f *testing.F) {
	srv := newFuzzServer(f)
	fuzzBodies[apitypes.PublishScheduleRequest](f, srv, bodyTarget{
		path: "/api/publish-schedules",
		accepted: func(t *testing.T, body string, rec *httptest.ResponseRecorder) {
			id := decodeAnswer[apitypes.Envelope[apitypes.PublishSchedule]](t, rec).Data.ScheduleID
			if del := srv.serve(t, http.MethodDelete, "/api/publish-schedules/"+url.PathEscape(id), ""); del.Code != http.StatusOK {
				t.Fatalf("body %q created schedule %q, which cannot be cancelled: %d %s", body, id, del.Code, del.Body)
			}
		},
	})
}
