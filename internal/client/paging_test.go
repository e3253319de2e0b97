package client

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

func TestListExportableClipsFollowsPages(t *testing.T) {
	const total = 23
	var pages []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.URL.Path != "/api/exportable-clips" || q.Get("q") != "findByProjectId" || q.Get("projectId") != "p1" {
			t.Errorf("unexpected request %s", r.URL)
		}
		num, _ := strconv.Atoi(q.Get("pageNum"))
		size, _ := strconv.Atoi(q.Get("pageSize"))
		pages = append(pages, q.Get("pageNum")+"/"+q.Get("pageSize"))
		clips := []apitypes.ExportableClip{}
		for i := (num - 1) * size; i < min(num*size, total); i++ {
			clips = append(clips, apitypes.ExportableClip{ID: fmt.Sprintf("p1.c%02d", i), ProjectID: "p1", CurationID: fmt.Sprintf("c%02d", i)})
		}
		writeJSON(w, 200, clips)
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, nil)

	clips, err := c.ListExportableClips(context.Background(), ClipFilter{ProjectID: "p1", PageSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(clips) != total || clips[0].ID != "p1.c00" || clips[total-1].ID != "p1.c22" {
		t.Fatalf("got %d clips", len(clips))
	}
	if got := strings.Join(pages, ","); got != "1/10,2/10,3/10" {
		t.Fatalf("pages requested %s", got)
	}

	// An exact multiple ends on an empty page; the default page size is 50.
	pages = nil
	clips, err = c.ListExportableClips(context.Background(), ClipFilter{ProjectID: "p1", PageSize: 23})
	if err != nil || len(clips) != total || strings.Join(pages, ",") != "1/23,2/23" {
		t.Fatalf("exact multiple: %v, %d clips, pages %v", err, len(clips), pages)
	}
	pages = nil
	if _, err := c.ListExportableClipsPage(context.Background(), ClipFilter{ProjectID: "p1"}, 1); err != nil || pages[0] != "1/50" {
		t.Fatalf("default page size: %v %v", err, pages)
	}
}

func TestListExportableClipsByCollection(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("q") != "findByCollectionId" || q.Get("collectionId") != "col1" || q.Has("projectId") {
			t.Errorf("unexpected query %s", r.URL.RawQuery)
		}
		writeJSON(w, 200, []apitypes.ExportableClip{{ID: "p.c"}})
	}))
	defer srv.Close()
	clips, err := newTestClient(t, srv.URL, nil).ListExportableClips(context.Background(), ClipFilter{CollectionID: "col1"})
	if err != nil || len(clips) != 1 {
		t.Fatalf("%v %d", err, len(clips))
	}
}

func TestListExportableClipsDetectsIgnoredPageNum(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, []apitypes.ExportableClip{{ID: "p.a"}, {ID: "p.b"}})
	}))
	defer srv.Close()
	_, err := newTestClient(t, srv.URL, nil).ListExportableClips(context.Background(), ClipFilter{ProjectID: "p", PageSize: 2})
	if err == nil || !strings.Contains(err.Error(), "ignores pageNum") {
		t.Fatalf("want a loop error, got %v", err)
	}
}

// ListCollections follows `next` whether the cursor is a string or a number.
func TestListCollectionsFollowsNext(t *testing.T) {
	var cursors []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("q") != "findByContentId" || q.Get("contentId") != "p1.c1" {
			t.Errorf("unexpected query %s", r.URL.RawQuery)
		}
		cursors = append(cursors, q.Get("next"))
		var page apitypes.CollectionPage
		switch q.Get("next") {
		case "":
			page = apitypes.CollectionPage{List: []apitypes.Collection{{CollectionID: "a"}, {CollectionID: "b"}}, Total: 5, Next: "cur-2"}
		case "cur-2":
			page = apitypes.CollectionPage{List: []apitypes.Collection{{CollectionID: "c"}, {CollectionID: "d"}}, Total: 5, Next: 12345678901234}
		case "12345678901234":
			page = apitypes.CollectionPage{List: []apitypes.Collection{{CollectionID: "e"}}, Total: 5, Next: nil}
		default:
			t.Errorf("unexpected cursor %q", q.Get("next"))
		}
		writeJSON(w, 200, map[string]any{"data": page})
	}))
	defer srv.Close()
	cols, err := newTestClient(t, srv.URL, nil).ListCollections(context.Background(), "p1.c1")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cols {
		ids = append(ids, c.CollectionID)
	}
	if strings.Join(ids, "") != "abcde" || strings.Join(cursors, ",") != ",cur-2,12345678901234" {
		t.Fatalf("ids %v cursors %v", ids, cursors)
	}
}

func TestListCollectionsMineAndRepeatedCursor(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("q") != "mine" || r.URL.Query().Has("contentId") {
			t.Errorf("unexpected query %s", r.URL.RawQuery)
		}
		writeJSON(w, 200, map[string]any{"data": apitypes.CollectionPage{List: []apitypes.Collection{{CollectionID: "a"}}, Next: "same"}})
	}))
	defer srv.Close()
	_, err := newTestClient(t, srv.URL, nil).ListCollections(context.Background(), "")
	if err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("want a repeated cursor error, got %v", err)
	}
}
