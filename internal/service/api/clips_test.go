package api

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// TestExportableClipsPaging: a page past the last is empty, never page 1
// again, up to the largest pageNum whose offset fits; a larger one is a
// 400 naming pageNum.
func TestExportableClipsPaging(t *testing.T) {
	t.Parallel()
	st, key := keyedStore(t)
	now := time.Now()
	if err := st.CreateProject(t.Context(), &store.Project{ID: "p1", OrgID: "org-a", Stage: apitypes.StageComplete, CreatedAt: now}, store.Admission{}); err != nil {
		t.Fatal(err)
	}
	var clips []store.Clip
	for _, id := range []string{"c1", "c2", "c3"} {
		clips = append(clips, store.Clip{ID: "p1." + id, CurationID: id, UpdatedAt: now})
	}
	if err := st.ReplaceClips(t.Context(), "p1", "org-a", clips); err != nil {
		t.Fatal(err)
	}
	h := New(Config{Store: st, Media: testMedia(t, t.TempDir()), PublicURL: "http://clipperd.test"})
	page := func(num string, size int) *httpAnswer {
		return answer(send(t, h, http.MethodGet, "/api/exportable-clips?q=findByProjectId&projectId=p1&pageSize="+strconv.Itoa(size)+"&pageNum="+num, key, ""))
	}
	for _, c := range []struct {
		num        string
		size, want int
	}{
		{"1", 2, 2}, {"2", 2, 1}, {"3", 2, 0}, {"1000", 100, 0},
		{strconv.Itoa(maxPageNum), maxPageSize, 0}, // the last offset that fits
	} {
		if got := page(c.num, c.size); got.status != http.StatusOK || len(got.clips) != c.want {
			t.Errorf("pageNum %s pageSize %d: %d %s, want %d clips", c.num, c.size, got.status, got.body, c.want)
		}
	}
	// Offsets past 2^63-1 wrapped to negative ones, which SQLite read as 0.
	for _, num := range []string{strconv.Itoa(maxPageNum + 1), "4611686018427387905", "99999999999999999999"} {
		got := page(num, 2)
		want := "pageNum: must be an integer from 1 to " + strconv.Itoa(maxPageNum) + `, not "` + num + `"`
		if got.status != http.StatusBadRequest || got.err.ErrorName != errBadRequest || got.err.ErrorMessage == nil || *got.err.ErrorMessage != want {
			t.Errorf("pageNum %s: %d %s, want 400 %q", num, got.status, got.body, want)
		}
	}
}

// httpAnswer is an answer of the exportable-clips endpoint, decoded.
type httpAnswer struct {
	status int
	body   string
	clips  []apitypes.ExportableClip
	err    apitypes.ErrorBody
}

func answer(rec interface {
	Result() *http.Response
}) *httpAnswer {
	resp := rec.Result()
	defer resp.Body.Close()
	var a httpAnswer
	a.status = resp.StatusCode
	var raw json.RawMessage
	_ = json.NewDecoder(resp.Body).Decode(&raw)
	a.body = string(raw)
	if a.status == http.StatusOK {
		_ = json.Unmarshal(raw, &a.clips)
	} else {
		_ = json.Unmarshal(raw, &a.err)
	}
	return &a
}

// TestClipTimesInTheSpecFormat: a clip's times, kept as times in the
// store, are answered in the spec's format (UTC, milliseconds), in the
// project's listing and the collection's.
func TestClipTimesInTheSpecFormat(t *testing.T) {
	t.Parallel()
	st, key := keyedStore(t)
	created := time.Date(2026, 11, 23, 1, 2, 3, 456789000, time.FixedZone("CET", 3600))
	if err := st.CreateProject(t.Context(), &store.Project{ID: "p1", OrgID: "org-a", Stage: apitypes.StageComplete, CreatedAt: created}, store.Admission{}); err != nil {
		t.Fatal(err)
	}
	clip := store.Clip{ID: "p1.c1", CurationID: "c1", CreatedAt: created, UpdatedAt: created.Add(time.Hour)}
	if err := st.ReplaceClips(t.Context(), "p1", "org-a", []store.Clip{clip}); err != nil {
		t.Fatal(err)
	}
	col, err := st.CreateCollection(t.Context(), "org-a", "best", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddCollectionContent(t.Context(), "org-a", col.CollectionID, clip.ID); err != nil {
		t.Fatal(err)
	}
	h := New(Config{Store: st, Media: testMedia(t, t.TempDir()), PublicURL: "http://clipperd.test"})
	for _, q := range []string{"q=findByProjectId&projectId=p1", "q=findByCollectionId&collectionId=" + col.CollectionID} {
		rec := send(t, h, http.MethodGet, "/api/exportable-clips?"+q, key, "")
		body := rec.Body.String()
		if rec.Code != http.StatusOK || !strings.Contains(body, `"createdAt":"2026-11-23T00:02:03.456Z"`) || !strings.Contains(body, `"updatedAt":"2026-11-23T01:02:03.456Z"`) {
			t.Errorf("%s: %d %s; want createdAt 2026-11-23T00:02:03.456Z and updatedAt 2026-11-23T01:02:03.456Z", q, rec.Code, body)
		}
	}
}
