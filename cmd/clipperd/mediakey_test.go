package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
)

// clock is a server clock the test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) add(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// TestMediaKeyRotateWhileServing: a clip's signed address works and the
// bare one does not; after `clipperd media-key rotate` on the data
// directory of the running server the old address is refused and a new
// read of the clip hands out one that works.
func TestMediaKeyRotateWhileServing(t *testing.T) {
	dir := t.TempDir()
	clk := &clock{now: time.Now()}
	srv, err := server.Start(t.Context(), server.Config{Listen: "127.0.0.1:0", DataDir: dir, APIKey: "ck_rotate_test", Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	project, clip := seedRenderedClip(t, dir, srv.URL())
	bare := srv.URL() + "/media/" + project + "/" + clip + ".mp4"

	get := func(url, key string) (int, []byte) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, body
	}
	signed := func() string {
		t.Helper()
		status, body := get(srv.URL()+"/api/exportable-clips?q=findByProjectId&projectId="+project, "ck_rotate_test")
		var clips []apitypes.ExportableClip
		if err := json.Unmarshal(body, &clips); status != http.StatusOK || err != nil || len(clips) != 1 {
			t.Fatalf("clips: %d %s", status, body)
		}
		return clips[0].URIForExport
	}

	old := signed()
	if !strings.HasPrefix(old, bare+"?") {
		t.Fatalf("address %q is not the clip's, signed", old)
	}
	if status, body := get(old, ""); status != http.StatusOK || string(body) != "the export render of "+project+"."+clip {
		t.Errorf("signed address: %d %q", status, body)
	}
	if status, _ := get(bare, ""); status != http.StatusForbidden {
		t.Errorf("bare address: %d, want 403", status)
	}

	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"media-key", "rotate", "--data", dir}, &out, &errOut); err != nil {
		t.Fatalf("media-key rotate: %v (stderr %s)", err, errOut.String())
	}
	clk.add(time.Minute) // past the signer's reuse of the key it read
	if status, body := get(old, ""); status != http.StatusForbidden || !strings.Contains(string(body), "rotated") {
		t.Errorf("old address after rotation: %d %s, want 403", status, body)
	}
	fresh := signed()
	if status, _ := get(fresh, ""); fresh == old || status != http.StatusOK {
		t.Errorf("new address %q: %d, want a new one that works", fresh, status)
	}
}
