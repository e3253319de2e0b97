package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// Object types of the nested preference arguments, taken from the schema so
// the codec and the schema cannot disagree.
var (
	curationType = objectTypeOf(curationAttribute().GetType())
	renderType   = objectTypeOf(renderAttribute().GetType())
)

func objectTypeOf(t any) types.ObjectType {
	ot, ok := t.(types.ObjectType)
	if !ok {
		panic(fmt.Sprintf("schema attribute is %T, not an object type", t))
	}
	return ot
}

func curationToAPI(obj types.Object) (*apitypes.CurationPref, error) {
	var out apitypes.CurationPref
	present, err := prefsToAPI(obj, &out, nil)
	if err != nil || !present {
		return nil, err
	}
	return &out, nil
}

func curationFromAPI(in *apitypes.CurationPref) (types.Object, error) {
	if in == nil {
		return types.ObjectNull(curationType.AttrTypes), nil
	}
	return prefsFromAPI(curationType, in, nil)
}

func renderToAPI(obj types.Object) (*apitypes.RenderPref, error) {
	var out apitypes.RenderPref
	present, err := prefsToAPI(obj, &out, nestQuickstart)
	if err != nil || !present {
		return nil, err
	}
	return &out, nil
}

func renderFromAPI(in *apitypes.RenderPref) (types.Object, error) {
	if in == nil {
		return types.ObjectNull(renderType.AttrTypes), nil
	}
	return prefsFromAPI(renderType, in, flattenQuickstart)
}

// remove_filler_words is the one render argument that is not a snake_case
// copy of its wire field: it stands for quickstartConfig.enableRemoveFillerWords.
func nestQuickstart(m map[string]any) {
	if v, ok := m["removeFillerWords"]; ok {
		delete(m, "removeFillerWords")
		m["quickstartConfig"] = map[string]any{"enableRemoveFillerWords": v}
	}
}

func flattenQuickstart(m map[string]any) {
	if qc, ok := m["quickstartConfig"].(map[string]any); ok {
		if v, ok := qc["enableRemoveFillerWords"]; ok {
			m["removeFillerWords"] = v
		}
	}
	delete(m, "quickstartConfig")
}
