package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// TestMediaOddNamesAreNotFound: a NUL in the name or a name longer than a
// file name can be is a 404 like any other missing file (not a 500), and
// is logged at debug level only, without the whole path (the request
// line's cut is reqlog's, tested there).
func TestMediaOddNamesAreNotFound(t *testing.T) {
	t.Parallel()
	st, _ := keyedStore(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "media", "p1"), 0o755); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := New(Config{Store: st, Media: testMedia(t, dir), PublicURL: "http://clipperd.test", Logger: logger})
	long := strings.Repeat("a", 5000)
	for _, path := range []string{"/media/p1/a%00b.mp4", "/media/p1%00/c1.mp4", "/media/p1/" + long + ".mp4", "/media/" + long + "/c1.mp4"} {
		logs.Reset()
		rec := send(t, h, http.MethodGet, path, "", "")
		wantAnswer(t, rec, http.StatusNotFound, errNotFound, "media file not found")
		for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
			// The request itself is logged by the server (reqlog); the
			// API may log nothing at all.
			if line != "" && !strings.Contains(line, "level=DEBUG") {
				t.Errorf("GET %.40s... logged above debug: %s", path, line)
			}
		}
		if strings.Contains(logs.String(), long) {
			t.Errorf("GET %.40s... logged the whole path", path)
		}
	}
}

// mediaFixture is a handler with project p1 of org-a, its clip c1 (export,
// preview and captions on disk), a collection holding it, and a clock the
// test moves.
type mediaFixture struct {
	t   *testing.T
	h   http.Handler
	st  *store.Store
	key string
	now time.Time
	col string
	dir string // the data directory of the media
}

func newMediaFixture(t *testing.T) *mediaFixture {
	t.Helper()
	st, key := keyedStore(t)
	f := &mediaFixture{t: t, st: st, key: key, now: time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)}
	dir := t.TempDir()
	now := f.now
	if err := st.CreateProject(t.Context(), &store.Project{ID: "p1", OrgID: "org-a", Stage: apitypes.StageComplete,
		Visibility: apitypes.VisibilityDefault, CreatedAt: now}, store.Admission{}); err != nil {
		t.Fatal(err)
	}
	base := "http://clipperd.test/media/p1/"
	clip := store.Clip{ID: "p1.c1", ProjectID: "p1", CurationID: "c1", URIForExport: base + "c1.mp4", URIForPreview: base + "c1.preview.mp4", UpdatedAt: now}
	if err := st.ReplaceClips(t.Context(), "p1", "org-a", []store.Clip{clip}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "media", "p1"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"c1.mp4", "c1.preview.mp4", "c1.srt", "c1.vtt", "c2.mp4"} {
		if err := os.WriteFile(filepath.Join(dir, "media", "p1", name), []byte("bytes of "+name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.h = New(Config{Store: st, Media: testMedia(t, dir), PublicURL: "http://clipperd.test", Now: func() time.Time { return f.now }})
	c, err := st.CreateCollection(t.Context(), "org-a", "best", 10)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddCollectionContent(t.Context(), "org-a", c.CollectionID, "p1.c1"); err != nil {
		t.Fatal(err)
	}
	f.col, f.dir = c.CollectionID, dir
	return f
}

// clip reads the clip as GET /api/exportable-clips lists it.
func (f *mediaFixture) clip() apitypes.ExportableClip {
	f.t.Helper()
	got := answer(send(f.t, f.h, http.MethodGet, "/api/exportable-clips?q=findByProjectId&projectId=p1", f.key, ""))
	if got.status != http.StatusOK || len(got.clips) != 1 {
		f.t.Fatalf("clips: %d %s", got.status, got.body)
	}
	return got.clips[0]
}

// fetch GETs a media address without a key: the status and the body.
func (f *mediaFixture) fetch(addr string) (int, string) {
	f.t.Helper()
	rec := send(f.t, f.h, http.MethodGet, strings.TrimPrefix(addr, "http://clipperd.test"), "", "")
	return rec.Code, rec.Body.String()
}

// TestMediaAddressesSigned: every listing hands out signed addresses, the
// same ones within a window; they serve the clip's files (captions by
// changing the extension) until they expire, and nothing else.
func TestMediaAddressesSigned(t *testing.T) {
	t.Parallel()
	f := newMediaFixture(t)
	c := f.clip()
	for addr, want := range map[string]string{
		c.URIForExport:  "bytes of c1.mp4",
		c.URIForPreview: "bytes of c1.preview.mp4",
		strings.Replace(c.URIForExport, ".mp4?", ".srt?", 1): "bytes of c1.srt",
		strings.Replace(c.URIForExport, ".mp4?", ".vtt?", 1): "bytes of c1.vtt",
	} {
		if !strings.Contains(addr, "?expires=") {
			t.Errorf("address %q is not signed", addr)
		}
		if status, body := f.fetch(addr); status != http.StatusOK || body != want {
			t.Errorf("GET %s: %d %q, want %q", addr, status, body, want)
		}
	}
	rec := send(t, f.h, http.MethodGet, "/api/exportable-clips?q=findByCollectionId&collectionId="+f.col, f.key, "")
	if got := answer(rec); len(got.clips) != 1 || got.clips[0].URIForExport != c.URIForExport {
		t.Errorf("collection listing %s, want the address %q", got.body, c.URIForExport)
	}
	rec = send(t, f.h, http.MethodPost, "/api/collections/"+f.col+"/export", f.key, "{}")
	var export apitypes.Envelope[apitypes.ExportedCollection]
	if err := json.Unmarshal(rec.Body.Bytes(), &export); err != nil || len(export.Data.ContentList) != 1 || export.Data.ContentList[0].URIForExport != c.URIForExport {
		t.Errorf("collection export %s, want the address %q", rec.Body, c.URIForExport)
	}

	f.now = f.now.Add(time.Hour)
	if again := f.clip(); again.URIForExport != c.URIForExport {
		t.Errorf("an hour later %q, want the same %q (plans stay empty)", again.URIForExport, c.URIForExport)
	}
	sibling := strings.Replace(c.URIForExport, "/c1.mp4?", "/c2.mp4?", 1)
	for name, addr := range map[string]string{
		"bare":          "http://clipperd.test/media/p1/c1.mp4",
		"other clip":    sibling,
		"missing file":  "http://clipperd.test/media/p1/c9.mp4",
		"longer expiry": strings.Replace(c.URIForExport, "expires=", "expires=9", 1),
	} {
		if status, body := f.fetch(addr); status != http.StatusForbidden || !strings.Contains(body, errForbidden) {
			t.Errorf("%s %s: %d %s, want a JSON 403", name, addr, status, body)
		}
	}
	f.now = f.now.Add(8 * 24 * time.Hour)
	if status, body := f.fetch(c.URIForExport); status != http.StatusForbidden || !strings.Contains(body, "expired") {
		t.Errorf("8 days later: %d %s, want 403 expired", status, body)
	}
	if status, _ := f.fetch(f.clip().URIForExport); status != http.StatusOK {
		t.Errorf("a new read 8 days later: %d, want 200", status)
	}
}

// TestMediaAddressesOfPublicProjects: a PUBLIC project's addresses live
// longer (30 days), and stop working when the project goes back to
// DEFAULT.
func TestMediaAddressesOfPublicProjects(t *testing.T) {
	t.Parallel()
	f := newMediaFixture(t)
	private := f.clip().URIForExport
	rec := send(t, f.h, http.MethodPost, "/api/clip-projects/p1/update-visibility", f.key, `{"visibility":"PUBLIC"}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("update-visibility: %d %s", rec.Code, rec.Body)
	}
	public := f.clip().URIForExport
	if public == private || !strings.Contains(public, "scope=public") {
		t.Fatalf("public address %q, want a public one", public)
	}
	f.now = f.now.Add(20 * 24 * time.Hour)
	if status, _ := f.fetch(public); status != http.StatusOK {
		t.Errorf("public address 20 days later: %d, want 200", status)
	}
	if status, _ := f.fetch(private); status != http.StatusForbidden {
		t.Errorf("the earlier address 20 days later: %d, want 403", status)
	}
	if rec := send(t, f.h, http.MethodPost, "/api/clip-projects/p1/update-visibility", f.key, `{"visibility":"DEFAULT"}`); rec.Code != http.StatusOK {
		t.Fatalf("update-visibility: %d %s", rec.Code, rec.Body)
	}
	if status, body := f.fetch(public); status != http.StatusForbidden || !strings.Contains(body, "no longer public") {
		t.Errorf("public address of a project made DEFAULT: %d %s, want 403", status, body)
	}
}

// TestMediaRangeErrorsAreJSON: a Range the file cannot satisfy is a 416 with
// the API's JSON error body (http.ServeContent writes plain text) and the
// file's size in Content-Range; a satisfiable one is a 206 of those bytes.
func TestMediaRangeErrorsAreJSON(t *testing.T) {
	t.Parallel()
	f := newMediaFixture(t)
	addr := strings.TrimPrefix(f.clip().URIForExport, "http://clipperd.test")
	get := func(rng string) *httptest.ResponseRecorder {
		req := httptest.NewRequestWithContext(t.Context(), http.MethodGet, addr, nil)
		req.Header.Set("Range", rng)
		rec := httptest.NewRecorder()
		f.h.ServeHTTP(rec, req)
		return rec
	}
	rec := get("bytes=9999-")
	var body apitypes.ErrorBody
	if rec.Code != http.StatusRequestedRangeNotSatisfiable || json.Unmarshal(rec.Body.Bytes(), &body) != nil ||
		body.ErrorMessage == nil || !strings.Contains(*body.ErrorMessage, "Range") {
		t.Errorf("Range past the end: %d %q, want a JSON 416 naming Range", rec.Code, rec.Body)
	}
	if got, want := rec.Header().Get("Content-Range"), fmt.Sprintf("bytes */%d", len("bytes of c1.mp4")); got != want {
		t.Errorf("Content-Range %q, want %q", got, want)
	}
	if rec := get("bytes=0-4"); rec.Code != http.StatusPartialContent || rec.Body.String() != "bytes" {
		t.Errorf("bytes=0-4: %d %q, want 206 \"bytes\"", rec.Code, rec.Body)
	}
}

// testMedia is the data directory's blob store over dir.
func testMedia(tb testing.TB, dir string) *blob.Dir {
	tb.Helper()
	d, err := blob.NewDir(dir, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}
