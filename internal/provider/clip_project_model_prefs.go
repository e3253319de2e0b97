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

// The curation and render arguments as the API's curationPref and renderPref.

func curationToAPI(obj types.Object) (*apitypes.CurationPref, error) {
	return prefsToAPI[apitypes.CurationPref](obj, nil)
}

func curationFromAPI(in *apitypes.CurationPref) (types.Object, error) {
	return prefsFromAPI(curationType, in, nil)
}

func renderToAPI(obj types.Object) (*apitypes.RenderPref, error) {
	return prefsToAPI[apitypes.RenderPref](obj, func(m map[string]any) {
		nestQuickstart(m)
		eachOverlay(m, nestOverlayFile)
	})
}

func renderFromAPI(in *apitypes.RenderPref) (types.Object, error) {
	return prefsFromAPI(renderType, in, func(m map[string]any) {
		flattenQuickstart(m)
		eachOverlay(m, flattenOverlayFile)
	})
}

// eachOverlay applies f to every item of screenOverlays.
func eachOverlay(m map[string]any, f func(map[string]any)) {
	items, _ := m["screenOverlays"].([]any)
	for _, it := range items {
		if o, ok := it.(map[string]any); ok {
			f(o)
		}
	}
}

// A screen overlay's file_id is the id of its stored-file object; the rest
// of that object is storage metadata the service fills in and a user cannot
// know, so it is neither sent nor kept.
func nestOverlayFile(o map[string]any) {
	if v, ok := o["fileId"]; ok {
		delete(o, "fileId")
		o["object"] = map[string]any{"id": v}
	}
}

func flattenOverlayFile(o map[string]any) {
	if obj, ok := o["object"].(map[string]any); ok {
		o["fileId"] = obj["id"]
	}
	delete(o, "object")
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
