package provider

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// samePrefs plans curation and render. Both replace the project when they
// change, but "change" means a different request to the service: a null
// argument and an object holding nothing but defaults (`render = {}`,
// `curation = { model = "ClipBasic" }`) ask for the same project, and so do
// an empty list and no list. Import cannot know which of these spellings the
// configuration uses, so without this rule an import plans a replacement.
//
// The arguments are also computed: a null configuration plans the
// defaults-only object (empty), the value Read and import store when the
// service reports nothing more, so that every spelling plans no change.
type samePrefs struct {
	empty types.Object
	wire  func(types.Object) ([]byte, error)
}

var _ planmodifier.Object = samePrefs{}

func (samePrefs) Description(context.Context) string {
	return "Replaces the project when the preferences sent to the service change; null and defaults-only objects are the same."
}

func (m samePrefs) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (m samePrefs) PlanModifyObject(ctx context.Context, req planmodifier.ObjectRequest, resp *planmodifier.ObjectResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy
	}
	planned := req.PlanValue
	if req.ConfigValue.IsNull() {
		planned = m.empty
	}
	resp.PlanValue = planned
	if req.State.Raw.IsNull() {
		return // create
	}
	if !fullyKnown(ctx, planned) {
		resp.RequiresReplace = true
		return
	}
	if !m.same(planned, req.StateValue) {
		resp.RequiresReplace = true
		return
	}
	// Terraform takes the prior value for a configured argument only when
	// there is one; a null prior (state written before this rule) takes the
	// configuration, an in-place change of nothing but the state.
	if !req.StateValue.IsNull() || req.ConfigValue.IsNull() {
		resp.PlanValue = req.StateValue
	}
}

// same reports whether a and b send the same preferences.
func (m samePrefs) same(a, b types.Object) bool {
	wa, errA := m.wire(a)
	wb, errB := m.wire(b)
	return errA == nil && errB == nil && bytes.Equal(wa, wb)
}

func fullyKnown(ctx context.Context, v types.Object) bool {
	tv, err := v.ToTerraformValue(ctx)
	return err == nil && tv.IsFullyKnown()
}

// curationWire is the curationPref a curation value sends, in the form the
// service works with: the model it assumes when none is given, and no
// skipCurate false (only true bypasses curation), so that the defaults a
// service echoes never tell two requests apart.
func curationWire(obj types.Object) ([]byte, error) {
	p, err := curationToAPI(obj)
	if err != nil {
		return nil, err
	}
	if p == nil {
		p = &apitypes.CurationPref{}
	}
	if p.Model == "" {
		p.Model = apitypes.ModelClipBasic
	}
	if p.SkipCurate != nil && !*p.SkipCurate {
		p.SkipCurate = nil
	}
	return json.Marshal(p)
}

// renderWire is the renderPref a render value sends; none is the empty object.
func renderWire(obj types.Object) ([]byte, error) {
	p, err := renderToAPI(obj)
	if err != nil {
		return nil, err
	}
	if p == nil {
		p = &apitypes.RenderPref{}
	}
	return json.Marshal(p)
}

// emptyCuration and emptyRender are the defaults-only values: what a null
// argument stands for.
func emptyCuration() types.Object {
	return mustPrefsObject(curationType, map[string]any{"model": apitypes.ModelClipBasic})
}

func emptyRender() types.Object {
	return mustPrefsObject(renderType, map[string]any{})
}

func mustPrefsObject(t types.ObjectType, data map[string]any) types.Object {
	v, err := jsonToObject(t, data)
	if err != nil {
		panic(err)
	}
	obj, ok := v.(types.Object)
	if !ok {
		panic("preferences value is not an object")
	}
	return obj
}
