package server

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
)

// collectionsPage is GET /api/collections with query, which must answer 200.
func (c *apiClient) collectionsPage(query string) apitypes.CollectionPage {
	c.t.Helper()
	resp, data := c.do(http.MethodGet, "/api/collections?"+query, nil)
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("GET /api/collections?%s: status %d, body %s", query, resp.StatusCode, data)
	}
	return decode[apitypes.Envelope[apitypes.CollectionPage]](c.t, data).Data
}

func (c *apiClient) mustCreateCollection(name string) apitypes.Collection {
	c.t.Helper()
	resp, data := c.do(http.MethodPost, "/api/collections", apitypes.CreateCollectionRequest{CollectionName: name})
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("create collection: status %d, body %s", resp.StatusCode, data)
	}
	return decode[apitypes.Envelope[apitypes.Collection]](c.t, data).Data
}

func collectionIDs(list []apitypes.Collection) []string {
	out := make([]string, len(list))
	for i, c := range list {
		out[i] = c.CollectionID
	}
	return out
}

// TestCollectionsFlow runs a real project to clips, then the whole life of a
// collection holding them, and checks another org sees none of it.
func TestCollectionsFlow(t *testing.T) {
	t.Parallel()
	video := sourceVideo(t)
	srv := startServer(t, Config{})
	c := newClient(t, srv, devKey)
	otherKey, err := srv.store.CreateKey(t.Context(), "org-other", "user-other")
	if err != nil {
		t.Fatal(err)
	}
	other := newClient(t, srv, otherKey)

	// Two short projects from one upload: clips of two projects to collect.
	projects, clips := c.finishedProjects(video, [2]int{0, 12}, [2]int{12, 24})
	p := projects[0]

	// Create, then list mine.
	col := c.mustCreateCollection("best of")
	if !strings.HasPrefix(col.CollectionID, "col_") || col.CollectionName != "best of" || col.CreatedAt == "" || col.UpdatedAt != col.CreatedAt {
		t.Errorf("created collection %+v", col)
	}
	empty := c.mustCreateCollection("empty")
	page := c.collectionsPage("q=mine")
	if !slices.Equal(collectionIDs(page.List), []string{col.CollectionID, empty.CollectionID}) || page.Total != 2 ||
		page.Next != nil || page.Limit == nil || *page.Limit != 20 {
		t.Errorf("q=mine page %+v", page)
	}

	// Add clips in reverse order; adding one twice changes nothing.
	added := []string{clips[1].ID, clips[0].ID}
	for _, id := range append(slices.Clone(added), clips[1].ID) {
		resp, data := c.do(http.MethodPost, "/api/collection-contents", apitypes.CollectionContent{CollectionID: col.CollectionID, ContentID: id})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("add %s: %d %s", id, resp.StatusCode, data)
		}
		if got := decode[apitypes.Envelope[apitypes.CollectionContent]](t, data).Data; got.CollectionID != col.CollectionID || got.ContentID != id {
			t.Errorf("add answered %+v", got)
		}
	}

	// Collections holding a clip.
	page = c.collectionsPage("q=findByContentId&contentId=" + url.QueryEscape(clips[0].ID))
	if !slices.Equal(collectionIDs(page.List), []string{col.CollectionID}) || page.Total != 1 || page.Next != nil {
		t.Errorf("findByContentId page %+v", page)
	}
	if page := c.collectionsPage("q=findByContentId&contentId=" + p.ID + ".nope"); len(page.List) != 0 || page.Total != 0 {
		t.Errorf("findByContentId of an unknown clip: %+v", page)
	}

	// The clips of the collection, in the order added, paged like by project.
	resp, data := c.do(http.MethodGet, "/api/exportable-clips?q=findByCollectionId&collectionId="+col.CollectionID, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("clips of the collection: %d %s", resp.StatusCode, data)
	}
	inCol := decode[[]apitypes.ExportableClip](t, data)
	if got := clipIDsOf(inCol); !slices.Equal(got, added) {
		t.Errorf("clips of the collection %v, want %v", got, added)
	}
	if len(inCol) == 2 && (inCol[1].URIForExport != clips[0].URIForExport || inCol[1].OrgID != DevOrgID) {
		t.Errorf("clip of the collection differs from the project's: %+v", inCol[1])
	}
	resp, data = c.do(http.MethodGet, "/api/exportable-clips?q=findByCollectionId&pageNum=2&pageSize=1&collectionId="+col.CollectionID, nil)
	if got := clipIDsOf(decode[[]apitypes.ExportableClip](t, data)); resp.StatusCode != http.StatusOK || !slices.Equal(got, added[1:]) {
		t.Errorf("page 2 of size 1: %d %v, want %v", resp.StatusCode, got, added[1:])
	}
	resp, data = c.do(http.MethodGet, "/api/exportable-clips?q=findByCollectionId&collectionId="+empty.CollectionID, nil)
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(data)) != "[]" {
		t.Errorf("clips of an empty collection: %d %s", resp.StatusCode, data)
	}

	// Export: the clips' export addresses, in the order added.
	want := []apitypes.ExportedContent{
		{ContentID: clips[1].ID, URIForExport: clips[1].URIForExport},
		{ContentID: clips[0].ID, URIForExport: clips[0].URIForExport},
	}
	if got := exportOf(t, c, col.CollectionID); !slices.Equal(got, want) {
		t.Errorf("export %+v, want %+v", got, want)
	}
	if got := exportOf(t, c, empty.CollectionID); len(got) != 0 {
		t.Errorf("export of an empty collection %+v", got)
	}

	// Another org: the collection does not exist for it, and our clip is
	// not one it can add to its own collection.
	notFound := []struct {
		method, path string
		body         any
	}{
		{http.MethodGet, "/api/exportable-clips?q=findByCollectionId&collectionId=" + col.CollectionID, nil},
		{http.MethodPost, "/api/collections/" + col.CollectionID + "/export", map[string]any{}},
		{http.MethodPost, "/api/collection-contents", apitypes.CollectionContent{CollectionID: col.CollectionID, ContentID: clips[0].ID}},
		{http.MethodPost, "/api/collection-contents/delete-collection-contents", apitypes.DeleteCollectionContentRequest{
			Q: apitypes.QDeleteByCollectionAndContent, CollectionID: col.CollectionID, ContentID: clips[0].ID}},
		{http.MethodDelete, "/api/collections/" + col.CollectionID, nil},
	}
	for _, nf := range notFound {
		resp, data := other.do(nf.method, nf.path, nf.body)
		wantError(t, resp, data, http.StatusNotFound, "Not Found", col.CollectionID)
	}
	if page := other.collectionsPage("q=mine"); len(page.List) != 0 || page.Total != 0 {
		t.Errorf("another org lists %+v", page)
	}
	if page := other.collectionsPage("q=findByContentId&contentId=" + clips[0].ID); len(page.List) != 0 {
		t.Errorf("another org finds our clip in %+v", page)
	}
	theirs := other.mustCreateCollection("theirs")
	resp, data = other.do(http.MethodPost, "/api/collection-contents", apitypes.CollectionContent{CollectionID: theirs.CollectionID, ContentID: clips[0].ID})
	wantError(t, resp, data, http.StatusBadRequest, "Bad Request", "contentId: no exportable clip")

	// Delete a content: gone from the clips, the export and the content lookup.
	del := apitypes.DeleteCollectionContentRequest{Q: apitypes.QDeleteByCollectionAndContent, CollectionID: col.CollectionID, ContentID: clips[1].ID}
	resp, data = c.do(http.MethodPost, "/api/collection-contents/delete-collection-contents", del)
	if resp.StatusCode != http.StatusOK || decode[apitypes.Envelope[string]](t, data).Data != "success" {
		t.Fatalf("delete content: %d %s", resp.StatusCode, data)
	}
	if got := exportOf(t, c, col.CollectionID); !slices.Equal(got, want[1:]) {
		t.Errorf("export after delete %+v, want %+v", got, want[1:])
	}
	if page := c.collectionsPage("q=findByContentId&contentId=" + clips[1].ID); len(page.List) != 0 {
		t.Errorf("a removed clip is still found in %+v", page)
	}
	resp, data = c.do(http.MethodPost, "/api/collection-contents/delete-collection-contents", del)
	wantError(t, resp, data, http.StatusNotFound, "Not Found", "is not in collection")

	// Delete the collection, and its contents with it.
	resp, data = c.do(http.MethodDelete, "/api/collections/"+col.CollectionID, nil)
	if resp.StatusCode != http.StatusOK || decode[apitypes.Envelope[string]](t, data).Data != col.CollectionID {
		t.Fatalf("delete collection: %d %s", resp.StatusCode, data)
	}
	if page := c.collectionsPage("q=mine"); !slices.Equal(collectionIDs(page.List), []string{empty.CollectionID}) || page.Total != 1 {
		t.Errorf("q=mine after delete %+v", page)
	}
	if page := c.collectionsPage("q=findByContentId&contentId=" + clips[0].ID); len(page.List) != 0 {
		t.Errorf("a deleted collection is still found by its clip: %+v", page)
	}
	resp, data = c.do(http.MethodDelete, "/api/collections/"+col.CollectionID, nil)
	wantError(t, resp, data, http.StatusNotFound, "Not Found", col.CollectionID)
	resp, data = c.do(http.MethodGet, "/api/exportable-clips?q=findByCollectionId&collectionId="+col.CollectionID, nil)
	wantError(t, resp, data, http.StatusNotFound, "Not Found", col.CollectionID)
}

func clipIDsOf(clips []apitypes.ExportableClip) []string {
	out := make([]string, len(clips))
	for i, c := range clips {
		out[i] = c.ID
	}
	return out
}

func exportOf(t *testing.T, c *apiClient, id string) []apitypes.ExportedContent {
	t.Helper()
	resp, data := c.do(http.MethodPost, "/api/collections/"+id+"/export", map[string]any{})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("export %s: %d %s", id, resp.StatusCode, data)
	}
	ex := decode[apitypes.Envelope[apitypes.ExportedCollection]](t, data).Data
	if ex.ContentList == nil {
		t.Errorf("export %s: contentList is null, want an array (%s)", id, data)
	}
	return ex.ContentList
}

// TestCollectionErrors covers every 400, 402 and 404 of the collection
// endpoints, cursor paging, and that they are outside the rate limit.
func TestCollectionErrors(t *testing.T) {
	t.Parallel()
	// A rate limit of 3 a minute: the collection calls below, far more, are
	// not limited (only the core project and clip endpoints are).
	srv := startServer(t, Config{Limits: quota.Limits{RateLimit: 3}})
	c := newClient(t, srv, devKey)

	resp, data := newClient(t, srv, "").do(http.MethodGet, "/api/collections?q=mine", nil)
	wantError(t, resp, data, http.StatusUnauthorized, "Unauthorized", "Authorization")

	badCreate := []struct {
		body any
		want string
	}{
		{map[string]any{}, "collectionName: is required"},
		{map[string]any{"collectionName": " \t "}, "collectionName: is required and must not be blank"},
		{map[string]any{"collectionName": strings.Repeat("é", 201)}, "collectionName: must be at most 200 characters, not 201"},
		{map[string]any{"collectionName": 7}, "collectionName: must be a string"},
		{"[", "body: malformed JSON"},
	}
	for _, b := range badCreate {
		resp, data := c.do(http.MethodPost, "/api/collections", b.body)
		wantError(t, resp, data, http.StatusBadRequest, "Bad Request", b.want)
	}
	col := c.mustCreateCollection(strings.Repeat("é", 200))

	badList := []struct{ query, want string }{
		{"", "q: is required: mine or findByContentId"},
		{"q=all", `q: must be mine or findByContentId, not "all"`},
		{"q=findByContentId", "contentId: is required when q=findByContentId"},
		{"q=findByContentId&contentId=nodot", `contentId: must be a clip id of the form {projectId}.{curationId}, not "nodot"`},
		{"q=mine&contentId=.c1", "contentId: must be a clip id"},
		{"q=mine&limit=0", "limit: must be an integer from 1 to 100"},
		{"q=mine&limit=101", "limit: must be an integer from 1 to 100"},
		{"q=mine&limit=x", "limit"},
		{"q=mine&next=-1", "next: must be a cursor"},
		{"q=mine&next=abc", "next: must be a cursor"},
	}
	for _, b := range badList {
		resp, data := c.do(http.MethodGet, "/api/collections?"+b.query, nil)
		wantError(t, resp, data, http.StatusBadRequest, "Bad Request", b.want)
	}

	// Contents: field rules first, then the collection (404), then the clip (400).
	badAdd := []struct {
		body   apitypes.CollectionContent
		status int
		name   string
		want   string
	}{
		{apitypes.CollectionContent{ContentID: "p.c"}, 400, "Bad Request", "collectionId: is required"},
		{apitypes.CollectionContent{CollectionID: col.CollectionID}, 400, "Bad Request", "contentId: is required"},
		{apitypes.CollectionContent{CollectionID: col.CollectionID, ContentID: "p."}, 400, "Bad Request", "contentId: must be a clip id"},
		{apitypes.CollectionContent{CollectionID: "col_nope", ContentID: "p.c"}, 404, "Not Found", `collection "col_nope" not found`},
		{apitypes.CollectionContent{CollectionID: col.CollectionID, ContentID: "p.c"}, 400, "Bad Request", `contentId: no exportable clip "p.c"`},
	}
	for _, b := range badAdd {
		resp, data := c.do(http.MethodPost, "/api/collection-contents", b.body)
		wantError(t, resp, data, b.status, b.name, b.want)
	}
	badDelete := []struct {
		body   apitypes.DeleteCollectionContentRequest
		status int
		name   string
		want   string
	}{
		{apitypes.DeleteCollectionContentRequest{CollectionID: col.CollectionID, ContentID: "p.c"}, 400, "Bad Request", `q: must be findByCollectionIdAndContentId, not ""`},
		{apitypes.DeleteCollectionContentRequest{Q: "findAll", CollectionID: col.CollectionID, ContentID: "p.c"}, 400, "Bad Request", `q: must be findByCollectionIdAndContentId, not "findAll"`},
		{apitypes.DeleteCollectionContentRequest{Q: apitypes.QDeleteByCollectionAndContent, ContentID: "p.c"}, 400, "Bad Request", "collectionId: is required"},
		{apitypes.DeleteCollectionContentRequest{Q: apitypes.QDeleteByCollectionAndContent, CollectionID: col.CollectionID}, 400, "Bad Request", "contentId: is required"},
		{apitypes.DeleteCollectionContentRequest{Q: apitypes.QDeleteByCollectionAndContent, CollectionID: "col_nope", ContentID: "p.c"}, 404, "Not Found", `collection "col_nope" not found`},
		{apitypes.DeleteCollectionContentRequest{Q: apitypes.QDeleteByCollectionAndContent, CollectionID: col.CollectionID, ContentID: "p.c"}, 404, "Not Found", `clip "p.c" is not in collection`},
	}
	for _, b := range badDelete {
		resp, data := c.do(http.MethodPost, "/api/collection-contents/delete-collection-contents", b.body)
		wantError(t, resp, data, b.status, b.name, b.want)
	}

	resp, data = c.do(http.MethodPost, "/api/collections/col_nope/export", map[string]any{})
	wantError(t, resp, data, http.StatusNotFound, "Not Found", `collection "col_nope" not found`)
	resp, data = c.do(http.MethodPost, "/api/collections/"+col.CollectionID+"/export", "[]")
	wantError(t, resp, data, http.StatusBadRequest, "Bad Request", "body: must be an object")
	// The export body may be left out entirely.
	if resp, data := c.do(http.MethodPost, "/api/collections/"+col.CollectionID+"/export", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("export without a body: %d %s", resp.StatusCode, data)
	}
	resp, data = c.do(http.MethodDelete, "/api/collections/col_nope", nil)
	wantError(t, resp, data, http.StatusNotFound, "Not Found", `collection "col_nope" not found`)

	// Quota: 100 collections per org, then 402.
	for i := 2; i <= 100; i++ {
		c.mustCreateCollection(fmt.Sprintf("c%03d", i))
	}
	resp, data = c.do(http.MethodPost, "/api/collections", apitypes.CreateCollectionRequest{CollectionName: "one too many"})
	wantError(t, resp, data, http.StatusPaymentRequired, "QuotaExceed", "collection quota of 100")

	// Cursor paging over the 100: pages of 30 in creation order, next null at the end.
	var all []string
	var cursors []any
	query := "q=mine&limit=30"
	for range 10 {
		page := c.collectionsPage(query)
		if page.Total != 100 || page.Limit == nil || *page.Limit != 30 {
			t.Fatalf("page %q: total %d limit %v", query, page.Total, page.Limit)
		}
		all = append(all, collectionIDs(page.List)...)
		cursors = append(cursors, page.Next)
		if page.Next == nil {
			break
		}
		next, ok := page.Next.(string)
		if !ok {
			t.Fatalf("next %v is not a string", page.Next)
		}
		query = "q=mine&limit=30&next=" + url.QueryEscape(next)
	}
	if len(all) != 100 || all[0] != col.CollectionID || len(cursors) != 4 || cursors[3] != nil {
		t.Errorf("paged %d collections (first %v) with cursors %v; want 100 in 4 pages", len(all), all[:min(1, len(all))], cursors)
	}
	seen := map[string]bool{}
	for _, id := range all {
		if seen[id] {
			t.Errorf("collection %s on two pages", id)
		}
		seen[id] = true
	}
	// Deleting one frees a place.
	resp, data = c.do(http.MethodDelete, "/api/collections/"+col.CollectionID, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("delete: %d %s", resp.StatusCode, data)
	}
	c.mustCreateCollection("in its place")
}
