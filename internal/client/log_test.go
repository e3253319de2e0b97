package client

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// TestAPIKeyNeverLogged drives successes, errors (one echoing the key) and an
// upload on the service's own origin through a Trace-level logger.
func TestAPIKeyNeverLogged(t *testing.T) {
	key := testKey(t)
	var srvURL string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/api/clip-projects/p1":
			writeJSON(w, 200, apitypes.Project{ID: "p1", Stage: apitypes.StageQueued})
		case r.URL.Path == "/api/clip-projects":
			writeJSON(w, 401, apitypes.ErrorBody{ErrorName: "Unauthorized", ErrorMessage: strp("bad key " + r.Header.Get("Authorization"))})
		case r.URL.Path == "/api/upload-links":
			writeJSON(w, 200, map[string]any{"data": apitypes.UploadLink{URL: srvURL + "/storage/u1", UploadID: "up1"}})
		case r.URL.Path == "/storage/u1" && r.Method == http.MethodPost:
			// Same origin as the API (clipperd serves uploads itself): credentials go along.
			if r.Header.Get("Authorization") != "Bearer "+key {
				t.Errorf("same-origin upload start lacks the bearer token")
			}
			w.Header().Set("Location", "/storage/u1/session")
			w.WriteHeader(201)
		case r.URL.Path == "/storage/u1/session":
			_, _ = io.Copy(io.Discard, r.Body)
			w.WriteHeader(200)
		default:
			t.Errorf("unexpected %s %s", r.Method, r.URL)
		}
	}))
	defer srv.Close()
	srvURL = srv.URL
	logger := &captureLogger{}
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.Logger = logger })
	ctx := context.Background()

	if _, err := c.GetProject(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateProject(ctx, apitypes.CreateProjectRequest{VideoURL: "u"}); err == nil {
		t.Fatal("want 401")
	}
	path := filepath.Join(t.TempDir(), "v.mp4")
	if err := os.WriteFile(path, []byte("not really a video"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UploadFile(ctx, path); err != nil {
		t.Fatal(err)
	}

	out := logger.text()
	if strings.Contains(out, key) {
		t.Fatalf("API key leaked into the log:\n%s", out)
	}
	for _, want := range []string{"Bearer ****", "GET", "/api/clip-projects/p1", "status:200", "status:401", `"stage":"QUEUED"`, "clipper upload request"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}

func TestMaskedAuth(t *testing.T) {
	long := &Client{apiKey: "sk-0123456789abcdef"}
	if got := long.maskedAuth(); got != "Bearer ****cdef" {
		t.Errorf("long key masked as %q", got)
	}
	short := &Client{apiKey: "abc123"}
	if got := short.maskedAuth(); got != "Bearer ****" {
		t.Errorf("short key masked as %q", got)
	}
}

func TestTraceBodiesTruncated(t *testing.T) {
	big := strings.Repeat("x", 3*maxLoggedBody)
	if got := bodyField([]byte(big)); len(got) > maxLoggedBody+32 || !strings.HasSuffix(got, "(truncated)") {
		t.Fatalf("body logged with %d bytes", len(got))
	}
}
