package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// submissions records the projects handed to processing.
type submissions struct {
	mu  sync.Mutex
	ids []string
}

func (s *submissions) Submit(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids = append(s.ids, id)
}

// TestCreateSubmits: a created project goes to the Runner, a refused one
// does not.
func TestCreateSubmits(t *testing.T) {
	st, key := keyedStore(t)
	var subs submissions
	h := New(Config{Store: st, Runner: &subs, Media: testMedia(t, t.TempDir()), PublicURL: "http://clipperd.test", AllowPrivateImports: true})
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
	if !slices.Equal(subs.ids, []string{p.ID}) {
		t.Errorf("submitted %v, want only the created project %s", subs.ids, p.ID)
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
