package server

import (
	"net/http"
	"testing"
)

// TestPrivateWebhooksRefusedUnlessAllowed: by default a project whose
// webhook is clipperd's own API is refused at create, naming the field;
// AllowPrivateWebhooks (--allow-private-webhooks) lets it through.
func TestPrivateWebhooksRefusedUnlessAllowed(t *testing.T) {
	t.Parallel()
	for _, allow := range []bool{false, true} {
		srv := startServer(t, Config{AllowPrivateImports: true, AllowPrivateWebhooks: allow})
		c := newClient(t, srv, devKey)
		resp, data := c.create(map[string]any{"videoUrl": ytURL, "conclusionActions": []map[string]any{
			{"type": "WEBHOOK", "url": srv.URL() + "/api/clip-projects"}}})
		if allow {
			if resp.StatusCode != http.StatusCreated {
				t.Errorf("with private webhooks allowed: %d %s, want 201", resp.StatusCode, data)
			}
			continue
		}
		wantError(t, resp, data, http.StatusBadRequest, "Bad Request",
			`conclusionActions[0].url: host "127.0.0.1" is or resolves to the non-public address 127.0.0.1`)
	}
}
