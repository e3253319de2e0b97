package pipeline

import (
	"context"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// A preset's caption style, emoji and a hook renderPref turns on reach the render, and the
// clips report them.
func TestRenderOptionsLooks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	id := "preset-fancy-Beasty"
	p := &store.Project{}
	p.OrgID, p.BrandTemplateID, p.RenderPref = testOrg, &id, &apitypes.RenderPref{EnableVisualHook: &yes}
	opts, used, err := r.renderOptions(context.Background(), &job{p: p})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Captions == nil || opts.Captions.Style.Look != "beasty" || !opts.Captions.Style.Uppercase {
		t.Errorf("captions %+v, want the Beasty look in capitals", opts.Captions)
	}
	if opts.Emoji == nil || opts.Hook == nil {
		t.Errorf("emoji %+v hook %+v: the preset's emoji and renderPref's hook must be drawn", opts.Emoji, opts.Hook)
	}
	if used.EnableEmoji == nil || !*used.EnableEmoji || used.EnableVisualHook == nil || !*used.EnableVisualHook {
		t.Errorf("reported renderPref %+v: enableEmoji and enableVisualHook must say they were drawn", used)
	}
	p.RenderPref = nil
	id = "preset-fancy-Simple"
	opts, _, err = r.renderOptions(context.Background(), &job{p: p})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Emoji != nil || opts.Hook != nil || opts.Captions == nil || opts.Captions.Style.Look != "simple" {
		t.Errorf("Simple preset: emoji %+v hook %+v captions %+v", opts.Emoji, opts.Hook, opts.Captions)
	}
}
