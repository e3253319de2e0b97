package acctest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// echoedTitle is the title the defaults-echoing server gives a project
// created without one, as a service naming projects after their video would.
const echoedTitle = "talk.mp4"

// newDefaultsEchoServer sits between the provider and the shared clipperd and
// fills into every project it answers the defaults the spec lets a service
// echo for what the create left out: importPref.sourceLang `auto` (the
// documented default), a title chosen by the service, curationPref.skipCurate
// false, the nullable render flags as null, and no conclusion actions as [].
func newDefaultsEchoServer(t *testing.T, target string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(u)
		r.Out.Header.Del("Accept-Encoding") // bodies are rewritten as plain JSON
	}}
	proxy.ModifyResponse = func(resp *http.Response) error {
		if !strings.HasPrefix(resp.Request.URL.Path, "/api/clip-projects") || resp.StatusCode >= 300 {
			return nil
		}
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			return err
		}
		if body, err = echoDefaults(body); err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv.URL
}

// echoDefaults fills the defaults into one project answer.
func echoDefaults(body []byte) ([]byte, error) {
	var p map[string]any
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, fmt.Errorf("project answer: %w", err)
	}
	fill := func(m map[string]any, key string, v any) {
		if cur, ok := m[key]; !ok || cur == nil {
			m[key] = v
		}
	}
	object := func(key string) map[string]any {
		m, _ := p[key].(map[string]any)
		if m == nil {
			m = map[string]any{}
			p[key] = m
		}
		return m
	}
	fill(object("importPref"), "sourceLang", apitypes.SourceLangAuto)
	fill(object("uploadedVideoAttr"), "title", echoedTitle)
	fill(object("curationPref"), "skipCurate", false)
	render := object("renderPref")
	for _, flag := range []string{"enableGameLayout", "enableBroll", "enableScreenOverlay", "disableScreenOverlay", "enableVoiceEnhancement"} {
		if _, ok := render[flag]; !ok {
			render[flag] = nil
		}
	}
	fill(p, "conclusionActions", []any{})
	return json.Marshal(p)
}

// TestAccClipProject_echoedDefaults: a project created without source_lang,
// title, curation, render or conclusion actions, against a service that
// echoes the defaults it filled in, plans no change after create, after
// import (an import block and terraform import), and with `auto` written out.
func TestAccClipProject_echoedDefaults(t *testing.T) {
	env := testAccSetup(t)
	media := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(env.Video))))
	t.Cleanup(media.Close)
	videoURL := media.URL + "/" + filepath.Base(env.Video)

	echoing := env
	echoing.URL = newDefaultsEchoServer(t, env.URL)
	config := echoing.providerBlock() + fmt.Sprintf(`
resource "clipper_clip_project" "echoed" {
  video_url = %q
}
`, videoURL)
	const addr = "clipper_clip_project.echoed"
	withAuto := withArg(t, config, `video_url = `+quote(videoURL), `video_url = `+quote(videoURL)+"\n  source_lang = \"auto\"")

	var projectID string
	// Created without the defaults: none of them shows up in a plan.
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("stage"), knownvalue.StringExact(string(apitypes.StageComplete))),
				// What the configuration left out stays out.
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("source_lang"), knownvalue.Null()),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("title"), knownvalue.Null()),
			},
			Check: func(s *terraform.State) error {
				projectID = s.RootModule().Resources[addr].Primary.ID
				return nil
			},
		}},
	})
	if projectID == "" {
		return // the create failed; its error says why
	}

	// Destroy only forgot the project: import it back.
	importedID := func(*terraform.State) (string, error) { return projectID, nil }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				// An import block: nothing but the import, though the
				// service reports the defaults it filled in.
				Config:            config,
				ResourceName:      addr,
				ImportState:       true,
				ImportStateKind:   resource.ImportBlockWithID,
				ImportStateIdFunc: importedID,
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("source_lang"), knownvalue.StringExact(apitypes.SourceLangAuto)),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("title"), knownvalue.StringExact(echoedTitle)),
						// false is what leaving it out asks for: not kept.
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("curation").AtMapKey("skip_curate"), knownvalue.Null()),
					},
				},
			},
			{
				// terraform import, kept in state for the next steps.
				Config:             config,
				ResourceName:       addr,
				ImportState:        true,
				ImportStateIdFunc:  importedID,
				ImportStatePersist: true,
			},
			{
				// The plan after the import is empty.
				Config:   config,
				PlanOnly: true,
			},
			{
				// `auto` written out is the project the import recorded.
				Config:   withAuto,
				PlanOnly: true,
			},
			{
				// A language is another project.
				Config:             strings.Replace(withAuto, `"auto"`, `"de"`, 1),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{expectReplacedBy(addr, "source_lang")},
				},
			},
		},
	})
}
