package acctest

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccClipProject_validation checks that every documented rule fails at
// plan time, with a message naming the attribute, before anything is created.
func TestAccClipProject_validation(t *testing.T) {
	env := testAccSetup(t)
	project := func(body string) string {
		return env.providerBlock() + fmt.Sprintf(`
resource "clipper_clip_project" "bad" {
%s
}
`, body)
	}
	withVideo := func(body string) string {
		return project(fmt.Sprintf("  video_url = \"https://videos.example.com/talk.mp4\"\n%s", body))
	}
	cases := []struct {
		name   string
		config string
		want   *regexp.Regexp
	}{
		{"range order", withVideo(`curation = { range = { start_sec = 60, end_sec = 30 } }`),
			errorText("curation.range: start_sec (60) must be less than end_sec (30)")},
		{"range partial", withVideo(`curation = { range = { start_sec = 10 } }`),
			regexp.MustCompile(`(?s)attribute\s+"end_sec"\s+is\s+required`)},
		{"clip duration order", withVideo(`curation = { clip_durations = [[30, 10]] }`),
			errorText("curation.clip_durations[0]: must be a pair [min, max] of seconds with 0 <= min < max, not [30, 10]")},
		{"clip duration pair", withVideo(`curation = { clip_durations = [[10, 20], [5, 10, 15]] }`),
			errorText("curation.clip_durations[1]: must be an array of exactly two numbers [min, max] of seconds, not [5,10,15]")},
		{"clip duration negative", withVideo(`curation = { clip_durations = [[-5, 10]] }`),
			errorText("curation.clip_durations[0]: must be a pair [min, max] of seconds with 0 <= min < max, not [-5, 10]")},
		{"topic_keywords with ClipAnything", withVideo(`curation = { model = "ClipAnything", topic_keywords = ["golang"] }`),
			errorText("curation.topic_keywords: applies to model ClipBasic only, and model is ClipAnything")},
		{"custom_prompt with the default model", withVideo(`curation = { custom_prompt = "funny moments" }`),
			errorText("curation.custom_prompt: applies to model ClipAnything only, and model is ClipBasic (the default)")},
		{"unknown model", withVideo(`curation = { model = "ClipEverything" }`),
			regexp.MustCompile(`(?s)curation\.model.*value must be one of`)},
		{"bad email", withVideo(`conclusion_actions = [{ type = "EMAIL", email = "not-an-address" }]`),
			errorText("conclusion_actions[0].email: must be an email address such as ops@example.com")},
		{"email action without email", withVideo(`conclusion_actions = [{ type = "EMAIL" }]`),
			errorText("conclusion_actions[0].email: an EMAIL action needs an email address such as ops@example.com to send to")},
		{"webhook url", withVideo(`conclusion_actions = [{ type = "WEBHOOK", url = "mailto:ops@example.com" }]`),
			errorText("conclusion_actions[0].url: must be an absolute http or https URL")},
		{"webhook without url", withVideo(`conclusion_actions = [{ type = "WEBHOOK" }]`),
			errorText("conclusion_actions[0].url: a WEBHOOK action needs an absolute http(s) url to post to")},
		{"webhook with an email", withVideo(`conclusion_actions = [{ type = "WEBHOOK", url = "https://hooks.example.com/x", email = "ops@example.com" }]`),
			errorText("conclusion_actions[0].email: does not apply when type is WEBHOOK; remove it")},
		{"eleven actions", withVideo("conclusion_actions = [" +
			strings.Repeat(`{ type = "EMAIL", email = "ops@example.com" }, `, 11) + "]"),
			errorText("conclusion_actions list must contain at most 10 elements, got: 11")},
		{"unknown action type", withVideo(`conclusion_actions = [{ type = "SMS" }]`),
			regexp.MustCompile(`(?s)conclusion_actions\[0\]\.type.*value must be one of`)},
		{"bad video_url", project(`video_url = "ftp://videos.example.com/talk.mp4"`),
			errorText("video_url: must be an http or https URL or an upload id")},
		{"bad ratio", withVideo(`render = { fit_layout_crop_ratio = "9x16" }`),
			errorText(`render.fit_layout_crop_ratio: must be a ratio w:h of two positive numbers such as 9:16 or 1.5:1, not "9x16"`)},
		{"bad aspect ratio", withVideo(`render = { layout_aspect_ratio = "widescreen" }`),
			regexp.MustCompile(`(?s)render\.layout_aspect_ratio.*value must be one of`)},
		{"bad color", withVideo(`render = { highlight_color = { primary = "yellow" } }`),
			errorText("render.highlight_color.primary: must be a hex color such as #FFCC00")},
		{"bad visibility", withVideo(`visibility = "PRIVATE"`),
			regexp.MustCompile(`(?s)visibility.*value must be one of`)},
		{"bad source_lang", withVideo(`source_lang = "English"`),
			regexp.MustCompile(`(?s)source_lang.*must be auto or a language code`)},
		{"both sources", project(fmt.Sprintf(`
  video_url   = "https://videos.example.com/talk.mp4"
  source_file = %q`, env.Video)),
			regexp.MustCompile(`(?s)Exactly\s+one\s+of\s+these\s+attributes\s+must\s+be\s+configured:\s+\[video_url,source_file\]`)},
		{"no source", project(`title = "nothing to clip"`),
			regexp.MustCompile(`(?s)Exactly\s+one\s+of\s+these\s+attributes\s+must\s+be\s+configured`)},
		{"screen overlay without its file", withVideo(`render = { screen_overlays = [{ style = "corner" }] }`),
			regexp.MustCompile(`(?s)attribute\s+"file_id"\s+is\s+required`)},
		{"font size", withVideo(`render = { font = { numerical_size = -4 } }`),
			errorText("render.font.numerical_size: must be a font size above 0, not -4")},
		{"emoji off the frame", withVideo(`render = { emoji_style = { rect = { x_pct = 250 } } }`),
			errorText("render.emoji_style.rect.x_pct: must be a percentage of the frame, from 0 to 100, not 250")},
		{"overlay off the frame", withVideo(`render = { screen_overlays = [{ file_id = "upl_1", rect = { h_pct = 120 } }] }`),
			errorText("render.screen_overlays[0].rect.h_pct: must be a percentage of the frame, from 0 to 100, not 120")},
		{"source_hash without source_file", withVideo(`source_hash = "abc"`),
			regexp.MustCompile(`(?s)source_file.*must\s+be\s+specified\s+when.*source_hash`)},
	}
	steps := make([]resource.TestStep, 0, len(cases))
	for _, tc := range cases {
		steps = append(steps, resource.TestStep{
			Config:      "# " + tc.name + "\n" + tc.config,
			PlanOnly:    true,
			ExpectError: tc.want,
		})
	}
	for _, valid := range []string{
		// The spec's ratio form w:h allows decimal sides, as clipperd always did.
		withVideo(`render = { fit_layout_crop_ratio = "1.5:1" }`),
		// Empty lists are the same as none, every one of them.
		withVideo(`render = {
  selected_transitions = []
  font                 = { style = [] }
  screen_overlays      = []
}
curation = {
  clip_durations = []
  topic_keywords = []
}
conclusion_actions = []`),
		// source_file is read at create, not at plan: a checkout without the
		// media, or a file the apply produces, plans.
		project(`source_file = "/nonexistent/talk.mp4"`),
	} {
		steps = append(steps, resource.TestStep{Config: valid, PlanOnly: true, ExpectNonEmptyPlan: true})
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps:                    steps,
	})
}

// TestAccClipProject_validationCitesTheLine checks that an error on a nested
// attribute cites the line of its argument (the top-level argument holding it,
// or the list element), not the resource block's first line: Terraform cannot
// follow a path into a nested attribute's object (hashicorp/terraform#33491),
// so provider.Server cuts the path where Terraform finds it.
func TestAccClipProject_validationCitesTheLine(t *testing.T) {
	env := testAccSetup(t)
	config := func(body string) string {
		return env.providerBlock() + `
resource "clipper_clip_project" "bad" {
  video_url = "https://videos.example.com/talk.mp4"
  title     = "line check"
` + body + `
}
`
	}
	// cites: the snippet Terraform prints under "in resource ...:": the line's
	// number, then the argument's text.
	cites := func(msg, line string) *regexp.Regexp {
		return regexp.MustCompile(`(?s)in resource "clipper_clip_project" "bad":\s+\d+:\s+` + regexp.QuoteMeta(line) + `.*` + errorText(msg).String())
	}
	steps := []resource.TestStep{
		{
			Config: config(`  render = {
    font = {
      numerical_size = -4
    }
  }`),
			ExpectError: cites("render.font.numerical_size: must be a font size above 0, not -4", "render = {"),
		},
		{
			Config: config(`  curation = {
    clip_durations = [[10, 20], [30, 10]]
  }`),
			ExpectError: cites("curation.clip_durations[1]: must be a pair [min, max] of seconds with 0 <= min < max, not [30, 10]", "curation = {"),
		},
		{
			// A list's element: its own line.
			Config: config(`  conclusion_actions = [
    { type = "EMAIL", email = "ops@example.com" },
    { type = "EMAIL", email = "not-an-address" },
  ]`),
			ExpectError: cites("conclusion_actions[1].email: must be an email address such as ops@example.com", `{ type = "EMAIL", email = "not-an-address" }`),
		},
	}
	for i := range steps {
		steps[i].PlanOnly = true
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps:                    steps,
	})
}
