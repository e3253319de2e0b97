package server

import (
	"fmt"
	"net/http"
	"testing"
)

// Each screenOverlays item names a complete upload of the caller's org: an
// unknown, incomplete or foreign one is a 400 naming the item.
func TestScreenOverlaysNameCompleteUploadsOfTheOrg(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{})
	c := newClient(t, srv, devKey)
	otherKey, err := srv.store.CreateKey(t.Context(), "org-other", "user-other")
	if err != nil {
		t.Fatal(err)
	}
	other := newClient(t, srv, otherKey)

	source := c.uploadFile(sourceVideo(t), 1<<20)
	logo := c.uploadFile([]byte("\x89PNG picture bytes"), 1<<10)
	foreign := other.uploadFile([]byte("another org's picture"), 1<<10)
	link := c.uploadLink()
	session := c.startSession(link.URL)
	if resp, body := c.do(http.MethodPut, session, make([]byte, 10), "Content-Range", "bytes 0-9/100", "Content-Type", "application/octet-stream"); resp.StatusCode != http.StatusPermanentRedirect {
		t.Fatalf("partial PUT: %d %s", resp.StatusCode, body)
	}
	create := func(second map[string]any) (*http.Response, []byte) {
		return c.create(map[string]any{
			"videoUrl":     source,
			"curationPref": map[string]any{"range": map[string]any{"startSec": 0, "endSec": 8}},
			"renderPref": map[string]any{"screenOverlays": []any{
				map[string]any{"object": map[string]any{"id": logo}, "rect": map[string]any{"xPct": 70, "yPct": 5, "wPct": 25, "hPct": 15}},
				second,
			}},
		})
	}
	const field = "renderPref.screenOverlays[1].object.id"
	for name, tc := range map[string]struct {
		item map[string]any
		want string
	}{
		"unknown":    {map[string]any{"object": map[string]any{"id": "up_nosuchupload"}}, field + `: unknown upload id "up_nosuchupload"`},
		"another's":  {map[string]any{"object": map[string]any{"id": foreign}}, fmt.Sprintf("%s: unknown upload id %q", field, foreign)},
		"incomplete": {map[string]any{"object": map[string]any{"id": link.UploadID}}, field + ": upload " + link.UploadID + " is incomplete"},
		"no object":  {map[string]any{"rect": map[string]any{"xPct": 1}}, field + ": is required"},
	} {
		t.Run(name, func(t *testing.T) {
			resp, data := create(tc.item)
			wantError(t, resp, data, http.StatusBadRequest, "Bad Request", tc.want)
		})
	}
	resp, data := c.create(map[string]any{"videoUrl": source, "renderPref": map[string]any{"screenOverlayFileId": foreign}})
	wantError(t, resp, data, http.StatusBadRequest, "Bad Request", fmt.Sprintf("renderPref.screenOverlayFileId: unknown upload id %q", foreign))
	many := make([]any, 11)
	for i := range many {
		many[i] = map[string]any{"object": map[string]any{"id": logo}}
	}
	resp, data = c.create(map[string]any{"videoUrl": source, "renderPref": map[string]any{"screenOverlays": many}})
	wantError(t, resp, data, http.StatusBadRequest, "Bad Request", "renderPref.screenOverlays: must have at most 10 items, not 11")
	if resp, data := create(map[string]any{"object": map[string]any{"id": logo}}); resp.StatusCode != http.StatusCreated {
		t.Errorf("two overlays of the org's complete upload: %d %s", resp.StatusCode, data)
	}
}
