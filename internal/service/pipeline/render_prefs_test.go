package pipeline

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/faces"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
)

// An org template's preferences are the base of a render; what renderPref
// sets overrides them field by field.
func TestRenderOptionsTemplateThenRenderPref(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	yes, no := true, false
	err := e.st.SaveBrandTemplate(context.Background(), testOrg, apitypes.BrandTemplate{
		TemplateID: "tpl_square", Name: "Square", IsDefault: true,
		Preferences: &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectSquare, EnableFitLayout: &yes, EnableWatermark: &yes},
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		pref      *apitypes.RenderPref
		aspect    string
		fit       bool
		watermark string
	}{
		{"template only", nil, apitypes.AspectSquare, true, watermarkText},
		{"aspect and watermark overridden", &apitypes.RenderPref{LayoutAspectRatio: "portrait", EnableWatermark: &no}, apitypes.AspectPortrait, true, ""},
		{"fit disabled", &apitypes.RenderPref{DisableFitLayout: &yes}, apitypes.AspectSquare, false, watermarkText},
		{"fit set false", &apitypes.RenderPref{EnableFitLayout: &no}, apitypes.AspectSquare, false, watermarkText},
	}
	for _, tc := range cases {
		p := &store.Project{}
		p.OrgID, p.RenderPref = testOrg, tc.pref
		opts, used, err := r.renderOptions(context.Background(), &job{p: p})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if opts.Aspect != tc.aspect || (opts.Layout == media.LayoutFit) != tc.fit || opts.Watermark != tc.watermark {
			t.Errorf("%s: options %+v, want aspect %s fit %v watermark %q", tc.name, opts, tc.aspect, tc.fit, tc.watermark)
		}
		if used.LayoutAspectRatio != tc.aspect || *used.EnableFitLayout != tc.fit || *used.EnableWatermark != (tc.watermark != "") {
			t.Errorf("%s: reported renderPref %+v does not match what was applied", tc.name, used)
		}
	}
}

// The layout switches of the template and of renderPref resolve to one layout (see
// pickLayout), and the renderPref reported on clips says which one, switch by switch.
func TestRenderLayoutFromTemplateAndRenderPref(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	yes, no := true, false
	// A template stored with two layouts, like a request with two, settles by precedence.
	for id, pref := range map[string]apitypes.RenderPref{
		"tpl_split":  {EnableSplitLayout: &yes},
		"tpl_both":   {EnableSplitLayout: &yes, EnableGameLayout: &yes},
		"tpl_nocrop": {DisableFillLayout: &yes},
	} {
		if err := e.st.SaveBrandTemplate(context.Background(), testOrg, apitypes.BrandTemplate{TemplateID: id, Name: id, Preferences: &pref}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		template string
		pref     *apitypes.RenderPref
		layout   string
		on       []string // the switches reported true
	}{
		{"", nil, media.LayoutFollow, []string{"enableFillLayout"}},
		{"", &apitypes.RenderPref{SkipReframe: &yes}, media.LayoutCenter, []string{"skipReframe", "enableFillLayout"}},
		{"", &apitypes.RenderPref{EnableAutoLayout: &yes}, media.LayoutAuto, []string{"enableAutoLayout"}},
		{"", &apitypes.RenderPref{DisableFillLayout: &yes}, media.LayoutFit, []string{"enableFitLayout"}},
		{"", &apitypes.RenderPref{EnableCrop: &no}, media.LayoutFit, []string{"enableFitLayout"}},
		{"", &apitypes.RenderPref{EnableCrop: &no, EnableSplitLayout: &yes}, media.LayoutSplit, []string{"enableSplitLayout"}},
		// A request with several layout switches true: the precedence, never a 400.
		{"", &apitypes.RenderPref{EnableAutoLayout: &yes, EnableSplitLayout: &yes}, media.LayoutAuto, []string{"enableAutoLayout"}},
		{"", &apitypes.RenderPref{EnableSplitLayout: &yes, EnableGameLayout: &yes}, media.LayoutGame, []string{"enableGameLayout"}},
		{"", &apitypes.RenderPref{EnableFitLayout: &yes, EnableFillLayout: &yes}, media.LayoutFit, []string{"enableFitLayout"}},
		{"", &apitypes.RenderPref{EnableFitLayout: &yes, DisableFitLayout: &yes}, media.LayoutFollow, []string{"enableFillLayout"}},
		{"", &apitypes.RenderPref{EnableFillLayout: &yes, DisableFillLayout: &yes}, media.LayoutFit, []string{"enableFitLayout"}},
		{"tpl_split", &apitypes.RenderPref{EnableFitLayout: &yes, DisableFitLayout: &yes}, media.LayoutSplit, []string{"enableSplitLayout"}},
		{"tpl_split", nil, media.LayoutSplit, []string{"enableSplitLayout"}},
		{"tpl_split", &apitypes.RenderPref{EnableSplitLayout: &no}, media.LayoutFollow, []string{"enableFillLayout"}},
		{"tpl_split", &apitypes.RenderPref{SkipReframe: &yes}, media.LayoutCenter, []string{"skipReframe", "enableFillLayout"}},
		{"tpl_split", &apitypes.RenderPref{EnableThreeLayout: &yes}, media.LayoutThree, []string{"enableThreeLayout"}},
		{"tpl_split", &apitypes.RenderPref{DisableFitLayout: &yes}, media.LayoutSplit, []string{"enableSplitLayout"}},
		{"tpl_both", nil, media.LayoutGame, []string{"enableGameLayout"}},
		{"tpl_nocrop", nil, media.LayoutFit, []string{"enableFitLayout"}},
		{"tpl_nocrop", &apitypes.RenderPref{EnableFillLayout: &yes}, media.LayoutFollow, []string{"enableFillLayout"}},
		{"preset-fancy-Gameplay", nil, media.LayoutGame, []string{"enableGameLayout"}},
		{"preset-fancy-Pod_P", nil, media.LayoutSplit, []string{"enableSplitLayout"}},
		{"preset-fancy-Pod_P", &apitypes.RenderPref{EnableFitLayout: &yes}, media.LayoutFit, []string{"enableFitLayout"}},
		{"preset-fancy-Deep_Diver", nil, media.LayoutFit, []string{"enableFitLayout"}},
		{"preset-fancy-Karaoke", nil, media.LayoutFollow, []string{"enableFillLayout"}},
	}
	for _, tc := range cases {
		p := &store.Project{}
		p.OrgID, p.RenderPref = testOrg, tc.pref
		if tc.template != "" {
			id := tc.template
			p.BrandTemplateID = &id
		}
		opts, used, err := r.renderOptions(context.Background(), &job{p: p})
		if err != nil {
			t.Fatalf("%s %+v: %v", tc.template, tc.pref, err)
		}
		if opts.Layout != tc.layout {
			t.Errorf("template %q, renderPref %+v: layout %s, want %s", tc.template, tc.pref, opts.Layout, tc.layout)
		}
		for _, s := range rules.LayoutSwitches {
			v := used.LayoutValue(s.Wire)
			if v == nil || *v != slices.Contains(tc.on, s.Wire) {
				t.Errorf("template %q, renderPref %+v: reported %s = %v, want %v", tc.template, tc.pref, s.Wire, ptrText(v), slices.Contains(tc.on, s.Wire))
			}
		}
		if v := used.DisableFillLayout; v != nil && *v && (tc.layout == media.LayoutFollow || tc.layout == media.LayoutCenter) {
			t.Errorf("template %q, renderPref %+v: reported disableFillLayout true for the crop %s", tc.template, tc.pref, tc.layout)
		}
	}
}

func ptrText(v *bool) string {
	if v == nil {
		return "unset"
	}
	return fmt.Sprint(*v)
}

// rules names the layouts by media's names, which pickLayout passes on as they are.
func TestLayoutSwitchesNameMediaLayouts(t *testing.T) {
	t.Parallel()
	for _, s := range rules.LayoutSwitches {
		if !slices.Contains(media.Layouts, s.Layout) {
			t.Errorf("%s picks %q, which is not a media layout %v", s.Wire, s.Layout, media.Layouts)
		}
	}
}

// A project over two people side by side with enableSplitLayout gets a split clip: the
// analysis finds both faces, and the export shows one in each half of the portrait frame
// (found there by pigo).
func TestSplitLayoutProjectStacksTwoFaces(t *testing.T) {
	t.Parallel()
	requireFFmpeg(t)
	src := filepath.Join(t.TempDir(), "two.mp4")
	if _, err := testvideo.TwoFaces(context.Background(), src, 0, testvideo.FaceOptions{Duration: 6 * time.Second, Silent: true}); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.runner()
	id := e.create(apitypes.CreateProjectRequest{
		VideoURL:     e.upload(src),
		CurationPref: &apitypes.CurationPref{SkipCurate: yes()},
		RenderPref:   &apitypes.RenderPref{EnableSplitLayout: yes()},
	})
	p := e.waitDone(id)
	if p.Stage != apitypes.StageComplete {
		t.Fatalf("stage = %s, error %v", p.Stage, deref(p.Error))
	}
	clips, err := e.st.ListClips(context.Background(), id, 0, 100)
	if err != nil || len(clips) != 1 {
		t.Fatalf("clips %d (%v), want 1", len(clips), err)
	}
	if rp := clips[0].RenderPref; rp == nil || !isTrue(rp.EnableSplitLayout) || isTrue(rp.EnableFillLayout) {
		t.Errorf("clip renderPref %+v, want enableSplitLayout reported true and the crop false", rp)
	}
	const w, h = 270, 480
	out, err := exec.Command("ffmpeg", "-v", "error", "-ss", "3", "-i", filepath.Join(e.dir, "media", id, clips[0].CurationID+".mp4"),
		"-frames:v", "1", "-vf", fmt.Sprintf("scale=%d:%d,format=gray", w, h), "-f", "rawvideo", "pipe:1").Output()
	if err != nil || len(out) != w*h {
		t.Fatalf("decode the export: %v (%d bytes)", err, len(out))
	}
	found := faces.Detect(out, w, h)
	if len(found) != 2 || (found[0].Y < h/2) == (found[1].Y < h/2) {
		t.Errorf("faces at %+v, want one in the top half and one in the bottom half", found)
	}
}
