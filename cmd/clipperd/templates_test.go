package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
)

// TestTemplatesCreateWhileServing stores org templates with `clipperd
// templates create` next to a running server: the API lists them at once,
// the --default one first and as the only default, and projects accept them
// by id (and take the default when they name none).
func TestTemplatesCreateWhileServing(t *testing.T) {
	dir := t.TempDir()
	srv, err := server.Start(t.Context(), server.Config{Listen: "127.0.0.1:0", DataDir: dir, APIKey: "dev-key", AllowPrivateImports: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })

	create := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		args = append([]string{"templates", "create", "--data", dir, "--org", server.DevOrgID}, args...)
		if err := run(t.Context(), args, &out, &errOut); err != nil {
			t.Fatalf("run %q: %v (stderr %s)", args, err, errOut.String())
		}
		words := strings.Fields(out.String())
		if len(words) == 0 {
			t.Fatalf("run %q printed nothing", args)
		}
		return words[len(words)-1]
	}
	call := func(method, path string, body any) (int, []byte) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			data, err := json.Marshal(body)
			if err != nil {
				t.Fatal(err)
			}
			rd = bytes.NewReader(data)
		}
		req, err := http.NewRequestWithContext(t.Context(), method, srv.URL()+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer dev-key")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, data
	}
	list := func() []apitypes.BrandTemplate {
		t.Helper()
		status, data := call(http.MethodGet, "/api/brand-templates?q=mine", nil)
		if status != http.StatusOK {
			t.Fatalf("brand-templates: %d %s", status, data)
		}
		var tpls []apitypes.BrandTemplate
		if err := json.Unmarshal(data, &tpls); err != nil {
			t.Fatal(err)
		}
		return tpls
	}
	defaults := func(tpls []apitypes.BrandTemplate) []string {
		var ids []string
		for _, tp := range tpls {
			if tp.IsDefault {
				ids = append(ids, tp.TemplateID)
			}
		}
		return ids
	}

	brand := create("--name", "Acme Square", "--default", "--aspect", "square", "--fit", "--watermark")
	tpls := list()
	if len(tpls) != len(apitypes.PresetTemplateIDs)+1 {
		t.Fatalf("%d templates, want the presets and one of the org", len(tpls))
	}
	first := tpls[0]
	if first.TemplateID != brand || first.Name != "Acme Square" || !first.IsDefault || first.Type != "custom" {
		t.Errorf("first template %+v, want %s named Acme Square, custom and default", first, brand)
	}
	if p := first.Preferences; p == nil || p.LayoutAspectRatio != "square" || p.EnableFitLayout == nil || !*p.EnableFitLayout ||
		p.EnableWatermark == nil || !*p.EnableWatermark {
		t.Errorf("preferences %+v, want square, fit and watermark", first.Preferences)
	}
	if got := defaults(tpls); len(got) != 1 || got[0] != brand {
		t.Errorf("defaults %v, want only %s", got, brand)
	}

	// A project naming the template is accepted; one naming none gets the org default.
	const video = "https://www.youtube.com/watch?v=abc123XYZ"
	for _, body := range []map[string]any{{"videoUrl": video, "brandTemplateId": brand}, {"videoUrl": video}} {
		status, data := call(http.MethodPost, "/api/clip-projects", body)
		if status != http.StatusCreated {
			t.Fatalf("create with %v: %d %s", body, status, data)
		}
		var p apitypes.Project
		if err := json.Unmarshal(data, &p); err != nil {
			t.Fatal(err)
		}
		if p.BrandTemplateID == nil || *p.BrandTemplateID != brand {
			t.Errorf("create with %v: brandTemplateId %v, want %s", body, p.BrandTemplateID, brand)
		}
	}

	// A template turns one layout on; two layouts are a usage error naming them.
	game := create("--name", "Games", "--layout", "enableGameLayout")
	for _, tp := range list() {
		if tp.TemplateID == game && (tp.Preferences == nil || tp.Preferences.EnableGameLayout == nil || !*tp.Preferences.EnableGameLayout) {
			t.Errorf("template --layout enableGameLayout: preferences %+v, want enableGameLayout true", tp.Preferences)
		}
	}
	for _, args := range [][]string{{"--fit", "--layout", "enableSplitLayout"}, {"--layout", "enableCaption"}} {
		var out, errOut bytes.Buffer
		args = append([]string{"templates", "create", "--data", dir, "--org", server.DevOrgID, "--name", "Bad"}, args...)
		err := run(t.Context(), args, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), "--layout") {
			t.Errorf("run %q: error %v, want a usage error naming --layout", args, err)
		}
	}

	// A plain template leaves the default alone; a new default replaces it.
	plain := create("--name", "Plain")
	if got := defaults(list()); len(got) != 1 || got[0] != brand {
		t.Errorf("after a plain template: defaults %v, want only %s", got, brand)
	}
	next := create("--name", "Acme Landscape", "--default", "--aspect", "landscape")
	tpls = list()
	if got := defaults(tpls); len(got) != 1 || got[0] != next {
		t.Errorf("after a new default: defaults %v, want only %s", got, next)
	}
	seen := map[string]bool{}
	for _, tp := range tpls {
		seen[tp.TemplateID] = true
	}
	if !seen[brand] || !seen[plain] || !seen[next] {
		t.Errorf("templates %v, want %s, %s and %s among them", tpls, brand, plain, next)
	}
}
