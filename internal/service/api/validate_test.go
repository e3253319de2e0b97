package api

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// TestNormalizeCreateNamesTheField checks that a rule of package rules comes
// back as a fieldError at the right place in the request: the rule's own
// field (startSec, url, ...) under the value it checked.
func TestNormalizeCreateNamesTheField(t *testing.T) {
	t.Parallel()
	num := func(v float64) *float64 { return &v }
	yes := func() *bool { v := true; return &v }
	no := func() *bool { v := false; return &v }
	const video = "https://www.youtube.com/watch?v=abc"
	cases := []struct {
		name      string
		req       apitypes.CreateProjectRequest
		field     string // "" when the request is valid
		ruleStart string
	}{
		{"decimal crop ratio", apitypes.CreateProjectRequest{VideoURL: video,
			RenderPref: &apitypes.RenderPref{FitLayoutCropRatio: "1.5:1"}}, "", ""},
		{"spaced crop ratio", apitypes.CreateProjectRequest{VideoURL: video,
			RenderPref: &apitypes.RenderPref{FitLayoutCropRatio: " 9 : 16"}}, "renderPref.fitLayoutCropRatio", "must be a ratio w:h"},
		{"negative font size", apitypes.CreateProjectRequest{VideoURL: video,
			RenderPref: &apitypes.RenderPref{Font: &apitypes.Font{NumericalSize: num(-4)}}},
			"renderPref.font.numericalSize", "must be a font size above 0, not -4"},
		{"emoji off the frame", apitypes.CreateProjectRequest{VideoURL: video,
			RenderPref: &apitypes.RenderPref{EmojiStyle: &apitypes.EmojiStyle{Rect: &apitypes.Rect{XPct: num(250), YPct: num(10)}}}},
			"renderPref.emojiStyle.rect.xPct", "must be a percentage of the frame, from 0 to 100, not 250"},
		{"second overlay off the frame", apitypes.CreateProjectRequest{VideoURL: video,
			RenderPref: &apitypes.RenderPref{ScreenOverlays: []apitypes.ScreenOverlay{
				{Rect: &apitypes.Rect{XPct: num(5), WPct: num(20)}}, {Rect: &apitypes.Rect{HPct: num(120)}}}}},
			"renderPref.screenOverlays[1].rect.hPct", "must be a percentage of the frame, from 0 to 100, not 120"},
		{"a placed emoji and overlay", apitypes.CreateProjectRequest{VideoURL: video,
			RenderPref: &apitypes.RenderPref{Font: &apitypes.Font{NumericalSize: num(48)},
				EmojiStyle:     &apitypes.EmojiStyle{Rect: &apitypes.Rect{XPct: num(0), YPct: num(100)}},
				ScreenOverlays: []apitypes.ScreenOverlay{{Rect: &apitypes.Rect{XPct: num(5), WPct: num(20)}}}}}, "", ""},
		// Layout switches are independent in the API: several true are settled by a
		// precedence at render (see the pipeline's TestRenderLayoutFromTemplateAndRenderPref).
		{"split and game layouts", apitypes.CreateProjectRequest{VideoURL: video,
			RenderPref: &apitypes.RenderPref{EnableSplitLayout: yes(), EnableGameLayout: yes()}}, "", ""},
		{"auto and split layouts", apitypes.CreateProjectRequest{VideoURL: video,
			RenderPref: &apitypes.RenderPref{EnableAutoLayout: yes(), EnableSplitLayout: yes()}}, "", ""},
		{"fit and fill layouts", apitypes.CreateProjectRequest{VideoURL: video,
			RenderPref: &apitypes.RenderPref{EnableFitLayout: yes(), EnableFillLayout: yes()}}, "", ""},
		{"fit enabled and disabled", apitypes.CreateProjectRequest{VideoURL: video,
			RenderPref: &apitypes.RenderPref{EnableFitLayout: yes(), DisableFitLayout: yes()}}, "", ""},
		{"skipReframe with fill", apitypes.CreateProjectRequest{VideoURL: video,
			RenderPref: &apitypes.RenderPref{SkipReframe: yes(), EnableFillLayout: yes(), EnableSplitLayout: no()}}, "", ""},
		{"negative range end", apitypes.CreateProjectRequest{VideoURL: video,
			CurationPref: &apitypes.CurationPref{Range: &apitypes.Range{StartSec: num(0), EndSec: num(-3)}}},
			"curationPref.range.endSec", "must be >= 0, not -3"},
		{"second clip duration", apitypes.CreateProjectRequest{VideoURL: video,
			CurationPref: &apitypes.CurationPref{ClipDurations: [][2]float64{{15, 30}, {-1, 10}}}},
			"curationPref.clipDurations[1]", "must be a pair [min, max] of seconds with 0 <= min < max, not [-1, 10]"},
		{"prompt with ClipBasic", apitypes.CreateProjectRequest{VideoURL: video,
			CurationPref: &apitypes.CurationPref{CustomPrompt: "funny bits"}},
			"curationPref.customPrompt", "applies to model ClipAnything only"},
		{"webhook with an email", apitypes.CreateProjectRequest{VideoURL: video,
			ConclusionActions: []apitypes.ConclusionAction{{Type: apitypes.ActionEmail, Email: "ops@example.com"},
				{Type: apitypes.ActionWebhook, URL: "https://hooks.example.com/x", Email: "ops@example.com"}}},
			"conclusionActions[1].email", "does not apply when type is WEBHOOK"},
		{"ten actions", apitypes.CreateProjectRequest{VideoURL: video, ConclusionActions: emailActions(10)}, "", ""},
		{"eleven actions", apitypes.CreateProjectRequest{VideoURL: video, ConclusionActions: emailActions(11)},
			"conclusionActions", "at most 10 conclusion actions per project, not 11"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := normalizeCreate(&tc.req)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var fe *fieldError
			if !errors.As(err, &fe) {
				t.Fatalf("want a fieldError at %s, got %v", tc.field, err)
			}
			if fe.Field != tc.field || !strings.HasPrefix(fe.Rule, tc.ruleStart) {
				t.Errorf("got %q, want %s: %s...", fe.Error(), tc.field, tc.ruleStart)
			}
		})
	}
}

// emailActions is n valid EMAIL conclusion actions.
func emailActions(n int) []apitypes.ConclusionAction {
	actions := make([]apitypes.ConclusionAction, n)
	for i := range actions {
		actions[i] = apitypes.ConclusionAction{Type: apitypes.ActionEmail, Email: fmt.Sprintf("ops%d@example.com", i)}
	}
	return actions
}

// TestTextFieldsAreBounded: each free-text field of a request body longer
// than its documented limit is a 400 naming the field and the limit (the
// probe's 100,000-character title, 100 KB sourceLang, 1 MB prompt among
// them); at the limit it passes.
func TestTextFieldsAreBounded(t *testing.T) {
	t.Parallel()
	const video = "https://www.youtube.com/watch?v=abc"
	long := func(n int) string { return strings.Repeat("x", n) }
	create := func(edit func(*apitypes.CreateProjectRequest)) func() error {
		return func() error {
			req := apitypes.CreateProjectRequest{VideoURL: video}
			edit(&req)
			return normalizeCreate(&req)
		}
	}
	copyJob := func(prompt string) func() error {
		return func() error {
			return checkCopyJob(&apitypes.SocialCopyJobRequest{ProjectID: "p", ClipID: "c01", PostAccountID: "pa", Prompt: prompt})
		}
	}
	post := func(title, description string) func() error {
		return func() error {
			return checkPostTask(&apitypes.PostTaskRequest{ProjectID: "p", ClipID: "c01", PostAccountID: "pa",
				PostDetail: apitypes.PostDetail{Title: title, Custom: &apitypes.PostDetailCustom{Description: description}}})
		}
	}
	cases := []struct {
		name  string
		check func() error
		field string // "" when valid
		rule  string
	}{
		{"title at its limit", create(func(r *apitypes.CreateProjectRequest) {
			r.UploadedVideoAttr = &apitypes.UploadedVideoAttr{Title: long(500)}
		}), "", ""},
		{"100,000-character title", create(func(r *apitypes.CreateProjectRequest) {
			r.UploadedVideoAttr = &apitypes.UploadedVideoAttr{Title: long(100000)}
		}), "uploadedVideoAttr.title", "must be at most 500 characters, not 100000"},
		{"100 KB sourceLang", create(func(r *apitypes.CreateProjectRequest) {
			r.ImportPref = &apitypes.ImportPref{SourceLang: long(100 << 10)}
		}), "importPref.sourceLang", "must be at most 64 characters, not 102400"},
		{"1 MB custom prompt", create(func(r *apitypes.CreateProjectRequest) {
			r.CurationPref = &apitypes.CurationPref{Model: apitypes.ModelClipAnything, CustomPrompt: long(1 << 20)}
		}), "curationPref.customPrompt", "must be at most 5000 characters, not 1048576"},
		{"51 keywords", create(func(r *apitypes.CreateProjectRequest) {
			r.CurationPref = &apitypes.CurationPref{TopicKeywords: make([]string, 51)}
		}), "curationPref.topicKeywords", "must have at most 50 items, not 51"},
		{"a long keyword", create(func(r *apitypes.CreateProjectRequest) {
			r.CurationPref = &apitypes.CurationPref{TopicKeywords: []string{"ok", long(101)}}
		}), "curationPref.topicKeywords[1]", "must be at most 100 characters, not 101"},
		{"copy prompt at its limit", copyJob(long(5000)), "", ""},
		{"1 MB copy prompt", copyJob(long(1 << 20)), "prompt", "must be at most 5000 characters, not 1048576"},
		{"long post title", post(long(501), ""), "postDetail.title", "must be at most 500 characters, not 501"},
		{"long post description", post("t", long(5001)), "postDetail.custom.description", "must be at most 5000 characters, not 5001"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.check()
			if tc.field == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var fe *fieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || fe.Rule != tc.rule {
				t.Fatalf("got %v, want %s: %s", err, tc.field, tc.rule)
			}
		})
	}
}
