package acctest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

const projectAddr = "clipper_clip_project.test"

// lifecycleConfig is one project from the shared test video, with the clips
// data source reading it. Only visibility varies between steps.
func lifecycleConfig(env accEnv, visibility string) string {
	return env.providerBlock() + fmt.Sprintf(`
resource "clipper_clip_project" "test" {
  source_file       = %[1]q
  source_hash       = filesha256(%[1]q)
  title             = "Acceptance talk"
  brand_template_id = "preset-fancy-Karaoke"
  source_lang       = "en"
  visibility        = %[2]q

  curation = {
    clip_durations = [[4, 12]]
    topic_keywords = ["video"]
    genre          = "Podcast"
  }

  render = {
    layout_aspect_ratio = "portrait"
    remove_filler_words = true
    enable_caption      = true
    highlight_color = {
      primary = "#FFCC00"
    }
  }

  conclusion_actions = [
    {
      type  = "EMAIL"
      email = "acceptance@example.com"
    },
  ]

  timeouts = {
    create = "10m"
  }
}

data "clipper_exportable_clips" "test" {
  project_id = clipper_clip_project.test.id
}
`, env.Video, visibility)
}

func TestAccClipProject_lifecycle(t *testing.T) {
	env := testAccSetup(t)
	var projectID string
	// Values that must not move when only visibility changes.
	sameID := statecheck.CompareValue(compare.ValuesSame())
	sameCreated := statecheck.CompareValue(compare.ValuesSame())
	sameClips := statecheck.CompareValue(compare.ValuesSame())
	sameCuration := statecheck.CompareValue(compare.ValuesSame())
	sameRender := statecheck.CompareValue(compare.ValuesSame())

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				Config: lifecycleConfig(env, "DEFAULT"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(projectAddr, plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(projectAddr, tfjsonpath.New("stage"), knownvalue.StringExact(string(apitypes.StageComplete))),
					statecheck.ExpectKnownValue(projectAddr, tfjsonpath.New("clip_count"), knownvalue.Int64Func(atLeastOne)),
					statecheck.ExpectKnownValue(projectAddr, tfjsonpath.New("visibility"), knownvalue.StringExact("DEFAULT")),
					statecheck.ExpectKnownValue(projectAddr, tfjsonpath.New("source_platform"), knownvalue.StringExact(apitypes.PlatformUploaded)),
					statecheck.ExpectKnownValue(projectAddr, tfjsonpath.New("org_id"), knownvalue.StringExact("org-dev")),
					statecheck.ExpectKnownValue(projectAddr, tfjsonpath.New("error"), knownvalue.Null()),
					statecheck.ExpectKnownValue(projectAddr, tfjsonpath.New("storage_expire_at"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(projectAddr, tfjsonpath.New("curation").AtMapKey("model"), knownvalue.StringExact("ClipBasic")),
					statecheck.ExpectKnownValue(projectAddr, tfjsonpath.New("render").AtMapKey("font"), knownvalue.Null()),
					statecheck.ExpectKnownValue(projectAddr, tfjsonpath.New("conclusion_actions").AtSliceIndex(0).AtMapKey("notify_failure"), knownvalue.Bool(false)),
					statecheck.CompareValuePairs(projectAddr, tfjsonpath.New("id"), projectAddr, tfjsonpath.New("project_id"), compare.ValuesSame()),
					sameID.AddStateValue(projectAddr, tfjsonpath.New("project_id")),
					sameCreated.AddStateValue(projectAddr, tfjsonpath.New("created_at")),
					sameClips.AddStateValue(projectAddr, tfjsonpath.New("clip_count")),
					sameCuration.AddStateValue(projectAddr, tfjsonpath.New("curation")),
					sameRender.AddStateValue(projectAddr, tfjsonpath.New("render")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttrPair("data.clipper_exportable_clips.test", "clips.#", projectAddr, "clip_count"),
					// Clips report the render preferences they were rendered with.
					resource.TestCheckResourceAttr("data.clipper_exportable_clips.test", "clips.0.render_pref.layout_aspect_ratio", "portrait"),
					resource.TestCheckResourceAttr("data.clipper_exportable_clips.test", "clips.0.render_pref.remove_filler_words", "true"),
					resource.TestCheckResourceAttr("data.clipper_exportable_clips.test", "clips.0.render_pref.enable_caption", "true"),
					resource.TestCheckResourceAttrPair("data.clipper_exportable_clips.test", "clips.0.project_id", projectAddr, "id"),
					checkClipsDownload(t, "data.clipper_exportable_clips.test", "clips"),
					func(s *terraform.State) error {
						projectID = s.RootModule().Resources[projectAddr].Primary.ID
						return nil
					},
				),
			},
			{
				ResourceName:      projectAddr,
				ImportState:       true,
				ImportStateVerify: true,
				// Only what the service cannot report back; import names the
				// upload in video_url instead of source_file.
				ImportStateVerifyIgnore: []string{"source_file", "source_hash", "wait_for_completion", "timeouts", "video_url"},
			},
			{
				Config: lifecycleConfig(env, "PUBLIC"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(projectAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(projectAddr, tfjsonpath.New("visibility"), knownvalue.StringExact("PUBLIC")),
						plancheck.ExpectKnownValue(projectAddr, tfjsonpath.New("project_id"), knownvalue.NotNull()),
						// A COMPLETE project keeps its reported values in the plan:
						// only updated_at waits for the service.
						plancheck.ExpectKnownValue(projectAddr, tfjsonpath.New("stage"), knownvalue.StringExact(string(apitypes.StageComplete))),
						plancheck.ExpectKnownValue(projectAddr, tfjsonpath.New("clip_count"), knownvalue.Int64Func(atLeastOne)),
						plancheck.ExpectKnownValue(projectAddr, tfjsonpath.New("storage_expire_at"), knownvalue.NotNull()),
						plancheck.ExpectKnownValue(projectAddr, tfjsonpath.New("brand_template_id"), knownvalue.StringExact("preset-fancy-Karaoke")),
						plancheck.ExpectUnknownValue(projectAddr, tfjsonpath.New("updated_at")),
						expectUnknownAttributes(projectAddr, "updated_at"),
						// The clips data source's arguments are known at plan time.
						// (Terraform still reads it at apply, as it does for any data
						// source that refers to a resource with a pending change.)
						plancheck.ExpectKnownValue("data.clipper_exportable_clips.test", tfjsonpath.New("project_id"), knownvalue.NotNull()),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(projectAddr, tfjsonpath.New("visibility"), knownvalue.StringExact("PUBLIC")),
					statecheck.ExpectKnownValue(projectAddr, tfjsonpath.New("stage"), knownvalue.StringExact(string(apitypes.StageComplete))),
					sameID.AddStateValue(projectAddr, tfjsonpath.New("project_id")),
					sameCreated.AddStateValue(projectAddr, tfjsonpath.New("created_at")),
					sameClips.AddStateValue(projectAddr, tfjsonpath.New("clip_count")),
					sameCuration.AddStateValue(projectAddr, tfjsonpath.New("curation")),
					sameRender.AddStateValue(projectAddr, tfjsonpath.New("render")),
				},
			},
			{
				// A plan of the unchanged configuration is empty.
				Config:   lifecycleConfig(env, "PUBLIC"),
				PlanOnly: true,
			},
			{
				// terraform plan -generate-config-out: the configuration
				// generated for the imported upload names it in video_url,
				// and plans nothing but the import.
				Config:          lifecycleConfig(env, "PUBLIC"),
				ResourceName:    projectAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				GenerateConfig:  true,
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("clipper_clip_project.generated", plancheck.ResourceActionNoop),
						plancheck.ExpectKnownValue("clipper_clip_project.generated", tfjsonpath.New("video_url"), knownvalue.StringRegexp(regexp.MustCompile(`.+`))),
						plancheck.ExpectKnownValue("clipper_clip_project.generated", tfjsonpath.New("source_file"), knownvalue.Null()),
					},
				},
			},
			{
				// The same file spelled differently, with the same
				// source_hash: the hash decides, nothing is replaced.
				Config: withArg(t, lifecycleConfig(env, "PUBLIC"), "source_file       = "+quote(env.Video), "source_file = "+quote(respelled(env.Video))),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(projectAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(projectAddr, tfjsonpath.New("source_file"), knownvalue.StringExact(respelled(env.Video))),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(projectAddr, tfjsonpath.New("project_id"))},
			},
			// Every argument but visibility replaces the project: each one
			// changed is named among the causes of the replacement.
			replaceStep(t, env, map[string][2]string{
				"source_hash":        {"filesha256(" + quote(env.Video) + ")", `"another content"`},
				"title":              {`"Acceptance talk"`, `"Another talk"`},
				"brand_template_id":  {`"preset-fancy-Karaoke"`, `"preset-fancy-Mozi"`},
				"source_lang":        {`source_lang       = "en"`, `source_lang = "de"`},
				"curation":           {`genre          = "Podcast"`, `genre = "Gaming"`},
				"render":             {`layout_aspect_ratio = "portrait"`, `layout_aspect_ratio = "square"`},
				"conclusion_actions": {`"acceptance@example.com"`, `"other@example.com"`},
			}),
			replaceStep(t, env, map[string][2]string{
				"video_url": {"source_hash       = filesha256(" + quote(env.Video) + ")", `video_url = "https://example.com/other.mp4"`},
				// source_file (without source_hash) is in TestAccClipProject_sourceAtApply.
			}),
			{
				// Removing the resource destroys it: it leaves the state.
				Config: env.providerBlock(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(projectAddr, plancheck.ResourceActionDestroy)},
				},
				Check: func(s *terraform.State) error {
					for _, rs := range s.RootModule().Resources {
						if rs.Type == "clipper_clip_project" {
							return fmt.Errorf("%s is still in state after destroy", rs.Primary.ID)
						}
					}
					return nil
				},
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if projectID == "" {
				return nil // the first step failed; its error says why
			}
			// Destroy only forgets: the service keeps the project until it expires.
			p, err := env.apiClient(t).GetProject(t.Context(), projectID)
			if err != nil {
				return fmt.Errorf("project %s should still exist on the service: %w", projectID, err)
			}
			if p.IsDeleted {
				return fmt.Errorf("project %s was deleted on the service", projectID)
			}
			return nil
		},
	})
}

// respelled is path spelled differently: through its directory's parent.
func respelled(path string) string {
	dir := filepath.Dir(path)
	return dir + "/../" + filepath.Base(dir) + "/" + filepath.Base(path)
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// withArg is config with old replaced by replacement; old must occur.
func withArg(t *testing.T, config, old, replacement string) string {
	t.Helper()
	if !strings.Contains(config, old) {
		t.Fatalf("configuration lacks %q", old)
	}
	return strings.Replace(config, old, replacement, 1)
}

// replaceStep plans the lifecycle configuration (respelled source_file, so
// that it matches the state) with each argument's old text replaced, and
// expects the project to be replaced because of each of those arguments.
// Replacing source_hash by video_url also drops source_file.
func replaceStep(t *testing.T, env accEnv, changes map[string][2]string) resource.TestStep {
	config := withArg(t, lifecycleConfig(env, "PUBLIC"), "source_file       = "+quote(env.Video), "source_file       = "+quote(respelled(env.Video)))
	checks := []plancheck.PlanCheck{plancheck.ExpectResourceAction(projectAddr, plancheck.ResourceActionReplace)}
	for arg, change := range changes {
		config = withArg(t, config, change[0], change[1])
		if arg == "video_url" {
			config = withArg(t, config, "source_file       = "+quote(respelled(env.Video)), "")
		}
		checks = append(checks, expectReplacedBy(projectAddr, arg))
	}
	return resource.TestStep{
		Config:             config,
		PlanOnly:           true,
		ExpectNonEmptyPlan: true,
		ConfigPlanChecks:   resource.ConfigPlanChecks{PostApplyPostRefresh: checks},
	}
}

func atLeastOne(v int64) error {
	if v < 1 {
		return fmt.Errorf("want at least 1 clip, got %d", v)
	}
	return nil
}

// checkClipsDownload fetches the uri_for_export of every item of the list
// attribute list of addr (clips, contents) and checks that an MP4 comes back.
func checkClipsDownload(t *testing.T, addr, list string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		uris, err := listedValues(s, addr, list, "uri_for_export")
		if err != nil {
			return err
		}
		if len(uris) == 0 {
			return fmt.Errorf("%s has no %s", addr, list)
		}
		for i, uri := range uris {
			if err := checkMP4Download(t, uri); err != nil {
				return fmt.Errorf("%s %d: %w", list, i, err)
			}
		}
		return nil
	}
}

func checkMP4Download(t *testing.T, uri string) error {
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, uri, nil)
	if err != nil {
		return fmt.Errorf("uri_for_export %q: %w", uri, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", uri, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("GET %s: reading body: %w", uri, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: status %d", uri, resp.StatusCode)
	}
	// An MP4 file starts with a box whose type, bytes 4 to 8, is "ftyp".
	if len(body) < 8 || !bytes.Equal(body[4:8], []byte("ftyp")) {
		return fmt.Errorf("GET %s: %d bytes that are not an MP4 file", uri, len(body))
	}
	return nil
}

// TestAccClipProject_stalled creates a project from a file that is not a
// video: it stalls, apply fails with the project's error, and the resource
// stays in state tainted, so the next plan replaces it.
func TestAccClipProject_stalled(t *testing.T) {
	env := testAccSetup(t)
	notVideo := filepath.Join(t.TempDir(), "notes.mp4")
	if err := os.WriteFile(notVideo, []byte("These are meeting notes, not a video.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	config := env.providerBlock() + fmt.Sprintf(`
resource "clipper_clip_project" "stalled" {
  source_file = %q
}
`, notVideo)
	const addr = "clipper_clip_project.stalled"

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{
				Config:      config,
				ExpectError: stalledError,
			},
			{
				Config:             config,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPreRefresh:  []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
				},
			},
		},
	})
}

// stalledError is the apply error of a stalled project: it quotes the
// project's error as the service reports it.
var stalledError = regexp.MustCompile(`(?s)Clip project stalled.*stalled\s+\(stallCount\s+\d+\):\s+IMPORT\s+failed:.*is\s+not\s+a\s+video.*tainted`)
