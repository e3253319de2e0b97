package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// present is a non-null plan or state: samePrefs only asks whether one exists.
var present = tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}, map[string]tftypes.Value{})

func curationOf(t *testing.T, c apitypes.CurationPref) types.Object {
	t.Helper()
	obj, err := curationFromAPI(&c)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

func TestSamePrefsPlansNoReplacementForTheSameRequest(t *testing.T) {
	ctx := context.Background()
	curation := samePrefs{empty: emptyCuration(), wire: curationWire}
	render := samePrefs{empty: emptyRender(), wire: renderWire}
	podcast := curationOf(t, apitypes.CurationPref{Model: apitypes.ModelClipBasic, Genre: "Podcast"})
	echoedNoSkip := curationOf(t, apitypes.CurationPref{Model: apitypes.ModelClipBasic, SkipCurate: ptr(false)})
	noTransitions := mustPrefsObject(renderType, map[string]any{"selectedTransitions": []any{}})
	unknownGenre := mustPrefsObject(curationType, map[string]any{"model": apitypes.ModelClipBasic})
	attrs := unknownGenre.Attributes()
	attrs["genre"] = types.StringUnknown()
	unknownGenre = types.ObjectValueMust(curationType.AttrTypes, attrs)

	for _, tc := range []struct {
		name          string
		m             samePrefs
		create        bool
		state, config types.Object
		wantPlan      types.Object
		wantReplace   bool
	}{
		{"create without curation plans the defaults-only object", curation, true,
			types.ObjectNull(curationType.AttrTypes), types.ObjectNull(curationType.AttrTypes), emptyCuration(), false},
		{"imported defaults, configuration omits curation", curation, false,
			emptyCuration(), types.ObjectNull(curationType.AttrTypes), emptyCuration(), false},
		{"imported defaults, configuration spells the default model", curation, false,
			emptyCuration(), emptyCuration(), emptyCuration(), false},
		{"state written without curation, configuration spells the default", curation, false,
			types.ObjectNull(curationType.AttrTypes), emptyCuration(), emptyCuration(), false},
		{"render = {} against an imported project without render", render, false,
			emptyRender(), emptyRender(), emptyRender(), false},
		{"an empty list sends what no list sends", render, false,
			emptyRender(), noTransitions, emptyRender(), false},
		{"an echoed skip_curate = false, configuration omits curation", curation, false,
			echoedNoSkip, types.ObjectNull(curationType.AttrTypes), echoedNoSkip, false},
		{"skip_curate = true is another request", curation, false,
			echoedNoSkip, curationOf(t, apitypes.CurationPref{SkipCurate: ptr(true)}), curationOf(t, apitypes.CurationPref{SkipCurate: ptr(true)}), true},
		{"a new genre replaces", curation, false, emptyCuration(), podcast, podcast, true},
		{"removing the genre replaces", curation, false, podcast, types.ObjectNull(curationType.AttrTypes), emptyCuration(), true},
		{"a genre known only at apply replaces", curation, false, emptyCuration(), unknownGenre, unknownGenre, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := tfsdk.State{Raw: present}
			if tc.create {
				state.Raw = tftypes.NewValue(present.Type(), nil)
			}
			req := planmodifier.ObjectRequest{
				Plan: tfsdk.Plan{Raw: present}, State: state,
				StateValue: tc.state, ConfigValue: tc.config, PlanValue: planValueOf(tc.config),
			}
			resp := &planmodifier.ObjectResponse{PlanValue: req.PlanValue}
			tc.m.PlanModifyObject(ctx, req, resp)
			if !resp.PlanValue.Equal(tc.wantPlan) {
				t.Errorf("planned %s, want %s", resp.PlanValue, tc.wantPlan)
			}
			if resp.RequiresReplace != tc.wantReplace {
				t.Errorf("RequiresReplace = %t, want %t", resp.RequiresReplace, tc.wantReplace)
			}
		})
	}
}

// planValueOf is the framework's plan of a computed argument: the
// configuration, or unknown where it is null.
func planValueOf(config types.Object) types.Object {
	if config.IsNull() {
		return types.ObjectUnknown(config.AttributeTypes(context.Background()))
	}
	return config
}
