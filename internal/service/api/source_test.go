package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
)

// TestCreateRefusesPrivateWebhooks: a WEBHOOK action whose host is visible
// at create as a non-public address (a literal one, or localhost) is a 400
// naming the action's url, clipperd's own API included; with private
// webhooks allowed the same project is created.
func TestCreateRefusesPrivateWebhooks(t *testing.T) {
	t.Parallel()
	st, key := keyedStore(t)
	// Private imports are allowed so that videoUrl is not looked up in DNS.
	cfg := Config{Store: st, Media: testMedia(t, t.TempDir()), PublicURL: "http://127.0.0.1:8787",
		AllowPrivateImports: true, Limits: quota.Limits{MaxConcurrent: 100}}
	guarded := New(cfg)
	cfg.AllowPrivateWebhooks = true
	allowed := New(cfg)
	targets := map[string]string{
		"http://127.0.0.1:8787/api/clip-projects": "127.0.0.1",
		"http://[::1]:9/hook":                     "::1",
		"http://localhost:8080/hook":              "127.0.0.1",
		"http://0.0.0.0/hook":                     "0.0.0.0",
		"http://169.254.169.254/latest/meta-data": "169.254.169.254",
		"https://[::ffff:10.0.0.7]/hook":          "10.0.0.7",
	}
	for target, addr := range targets {
		body := fmt.Sprintf(`{"videoUrl": "https://www.youtube.com/watch?v=abc", "conclusionActions": [
			{"type": "EMAIL", "email": "ops@example.com"}, {"type": "WEBHOOK", "url": %q}]}`, target)
		rec := send(t, guarded, http.MethodPost, "/api/clip-projects", key, body)
		var answer struct{ ErrorMessage string }
		_ = json.Unmarshal(rec.Body.Bytes(), &answer)
		if rec.Code != http.StatusBadRequest ||
			!strings.HasPrefix(answer.ErrorMessage, "conclusionActions[1].url: ") ||
			!strings.Contains(answer.ErrorMessage, "non-public address "+addr) ||
			!strings.Contains(answer.ErrorMessage, "--allow-private-webhooks") {
			t.Errorf("webhook to %s: %d %s; want 400 naming conclusionActions[1].url, the address %s and the opt-out",
				target, rec.Code, rec.Body, addr)
		}
		if rec := send(t, allowed, http.MethodPost, "/api/clip-projects", key, body); rec.Code != http.StatusCreated {
			t.Errorf("webhook to %s with private webhooks allowed: %d %s, want 201", target, rec.Code, rec.Body)
		}
	}
}
