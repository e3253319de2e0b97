package api

import (
	"net/http"
	"testing"
)

// TestExportCollectionBody: the export takes `{}` (or nothing, or an object
// whose fields it ignores); any other body, even a lone `{`, is a 400
// naming the body.
func TestExportCollectionBody(t *testing.T) {
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
