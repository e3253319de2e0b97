package pipeline

import (
	"context"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// An org template's preferences are the base of a render; what renderPref
// sets overrides them field by field.
func TestRenderOptionsTemplateThenRenderPref(t *testing.T) {
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
		if opts.Aspect != tc.aspect || opts.Fit != tc.fit || opts.Watermark != tc.watermark {
			t.Errorf("%s: options %+v, want aspect %s fit %v watermark %q", tc.name, opts, tc.aspect, tc.fit, tc.watermark)
		}
		if used.LayoutAspectRatio != tc.aspect || *used.EnableFitLayout != tc.fit || *used.EnableWatermark != (tc.watermark != "") {
			t.Errorf("%s: reported renderPref %+v does not match what was applied", tc.name, used)
		}
	}
}
