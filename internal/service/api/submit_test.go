package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/pipeline"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/scratch"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// TestCreateEnqueues: a created project gets its pipeline job in the
// transaction that stores it; a refused one gets none. The job system is
// not started, so the job waits, available.
func TestCreateEnqueues(t *testing.T) {
	t.Parallel()
	st, key := keyedStore(t)
	js, err := jobs.Open(t.Context(), jobs.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	runner, err := pipeline.New(pipeline.Config{Store: st, Jobs: js, Media: testMedia(t, dir), Scratch: scratch.New(filepath.Join(dir, "tmp"))})
	if err != nil {
		t.Fatal(err)
	}
	h := New(Config{Store: st, Runner: runner, Media: testMedia(t, dir), PublicURL: "http://clipperd.test", AllowPrivateImports: true})
	create := func(body string) *httptest.ResponseRecorder {
		return send(t, h, http.MethodPost, "/api/clip-projects", key, body)
	}

	if rec := create(`{"videoUrl": "ftp://example.com/v.mp4"}`); rec.Code != http.StatusBadRequest {
		t.Fatalf("invalid create: %d %s", rec.Code, rec.Body)
	}
	rec := create(`{"videoUrl": "https://www.youtube.com/watch?v=abc"}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	var p apitypes.Project
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	recent, err := js.Recent(t.Context(), jobs.QueueImport, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(recent) != 1 || recent[0].State != "available" || !strings.Contains(recent[0].Args, `"project_id":"`+p.ID+`"`) {
		t.Errorf("import jobs %+v, want one available job of the created project %s", recent, p.ID)
	}
}

// keyedStore is a store in a temporary directory with one API key, of
// org-a and user-a.
func keyedStore(t *testing.T) (*store.Store, string) {
	t.Helper()
	st, err := store.Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	key, err := st.CreateKey(t.Context(), "org-a", "user-a")
	if err != nil {
		t.Fatal(err)
	}
	return st, key
}
