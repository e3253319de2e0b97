package api

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// TestExportCollectionBody: the export takes `{}` (or nothing, or an object
// whose fields it ignores); any other body, even a lone `{`, is a 400
// naming the body.
func TestExportCollectionBody(t *testing.T) {
	t.Parallel()
	st, key := keyedStore(t)
	h := New(Config{Store: st, Media: testMedia(t, t.TempDir()), PublicURL: "http://clipperd.test"})
	rec := send(t, h, http.MethodPost, "/api/collections", key, `{"collectionName":"best"}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("create collection: %d %s", rec.Code, rec.Body)
	}
	list, _, err := st.ListCollections(t.Context(), "org-a", "", 0, 1)
	if err != nil || len(list) != 1 {
		t.Fatalf("collections %v: %v", list, err)
	}
	path := "/api/collections/" + list[0].CollectionID + "/export"
	for _, body := range []string{"", "{}", " {} ", `{"format":"zip"}`} {
		if rec := send(t, h, http.MethodPost, path, key, body); rec.Code != http.StatusOK {
			t.Errorf("body %q: %d %s, want 200", body, rec.Code, rec.Body)
		}
	}
	for body, msg := range map[string]string{
		"{":       "body: malformed JSON",
		"[]":      "body: must be an object, not a JSON array",
		`"x"`:     "body: must be an object, not a JSON string",
		"null x":  "body: malformed JSON",
		"null":    "body: must be a JSON object or empty, not null",
		"{} {}":   "body: malformed JSON: data after the top-level value",
		`{"a":}`:  "body: malformed JSON",
		"\x00":    "body: malformed JSON",
		"42":      "body: must be an object, not a JSON number",
		`{"a":1`:  "body: malformed JSON",
		"}":       "body: malformed JSON",
		"nul":     "body: malformed JSON",
		"\"\\u00": "body: malformed JSON",
	} {
		wantAnswer(t, send(t, h, http.MethodPost, path, key, body), http.StatusBadRequest, errBadRequest, msg)
	}
}

// TestCollectionTimesInTheSpecFormat: a collection's times, kept as times
// in the store, are answered in the spec's format (UTC, milliseconds), on
// its creation and in the list.
func TestCollectionTimesInTheSpecFormat(t *testing.T) {
	t.Parallel()
	st, key := keyedStore(t)
	at := time.Date(2026, 11, 23, 1, 2, 3, 456789000, time.FixedZone("CET", 3600))
	st.SetClock(func() time.Time { return at })
	h := New(Config{Store: st, Media: testMedia(t, t.TempDir()), PublicURL: "http://clipperd.test"})
	const want = "2026-11-23T00:02:03.456Z"
	rec := send(t, h, http.MethodPost, "/api/collections", key, `{"collectionName":"best"}`)
	var created apitypes.Envelope[apitypes.Collection]
	if err := json.Unmarshal(rec.Body.Bytes(), &created); rec.Code != http.StatusOK || err != nil {
		t.Fatalf("create collection: %d %s (%v)", rec.Code, rec.Body, err)
	}
	if c := created.Data; c.CreatedAt != want || c.UpdatedAt != want {
		t.Errorf("created %+v, want createdAt and updatedAt %s", c, want)
	}
	rec = send(t, h, http.MethodGet, "/api/collections?q=mine", key, "")
	var page apitypes.Envelope[apitypes.CollectionPage]
	if err := json.Unmarshal(rec.Body.Bytes(), &page); rec.Code != http.StatusOK || err != nil {
		t.Fatalf("list collections: %d %s (%v)", rec.Code, rec.Body, err)
	}
	if len(page.Data.List) != 1 || page.Data.List[0] != created.Data {
		t.Errorf("listed %+v, want [%+v]", page.Data.List, created.Data)
	}
}
