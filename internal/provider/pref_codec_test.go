package provider

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// fillAll sets every field reachable from v (a pointer to a struct) to a
// non-zero value derived from its name, so a round trip through the Terraform
// model proves that no wire field lacks an attribute.
func fillAll(t *testing.T, v reflect.Value, name string) {
	t.Helper()
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillAll(t, v.Elem(), name)
	case reflect.Struct:
		for i := range v.NumField() {
			fillAll(t, v.Field(i), name+"."+v.Type().Field(i).Name)
		}
	case reflect.String:
		v.SetString("v-" + name)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Float64:
		v.SetFloat(float64(len(name)) + 0.5)
	case reflect.Int64:
		v.SetInt(int64(len(name)))
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fillAll(t, v.Index(i), name)
		}
	case reflect.Array:
		for i := range v.Len() {
			v.Index(i).SetFloat(float64(i*10 + 5))
		}
	default:
		t.Fatalf("fillAll: unhandled kind %s at %s", v.Kind(), name)
	}
}

func TestRenderPrefRoundTripsEveryField(t *testing.T) {
	var in apitypes.RenderPref
	fillAll(t, reflect.ValueOf(&in).Elem(), "render")
	// Of a screen overlay's stored file only the id is an argument (file_id):
	// the rest is storage metadata the service fills in.
	for i := range in.ScreenOverlays {
		in.ScreenOverlays[i].Object = &apitypes.StoredFile{ID: in.ScreenOverlays[i].Object.ID}
	}

	obj, err := renderFromAPI(&in)
	if err != nil {
		t.Fatal(err)
	}
	if obj.IsNull() {
		t.Fatal("a filled renderPref read back as null")
	}
	// Every attribute of the schema has a value: none is left unmapped.
	for name, v := range obj.Attributes() {
		if v.IsNull() {
			t.Errorf("render.%s is null although every wire field was set", name)
		}
	}
	out, err := renderToAPI(obj)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&in, out) {
		a, _ := json.Marshal(in)
		b, _ := json.Marshal(out)
		t.Fatalf("round trip changed renderPref:\n in: %s\nout: %s", a, b)
	}
}

func TestCurationPrefRoundTrip(t *testing.T) {
	var in apitypes.CurationPref
	fillAll(t, reflect.ValueOf(&in).Elem(), "curation")
	// skipSlicing is a maintained alias of skipCurate the provider does not expose.
	in.SkipSlicing = nil

	obj, err := curationFromAPI(&in)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range obj.Attributes() {
		if v.IsNull() {
			t.Errorf("curation.%s is null although every wire field was set", name)
		}
	}
	out, err := curationToAPI(obj)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&in, out) {
		a, _ := json.Marshal(in)
		b, _ := json.Marshal(out)
		t.Fatalf("round trip changed curationPref:\n in: %s\nout: %s", a, b)
	}
}

func TestRemoveFillerWordsIsQuickstartConfig(t *testing.T) {
	on := true
	obj, err := renderFromAPI(&apitypes.RenderPref{QuickstartConfig: &apitypes.QuickstartConfig{EnableRemoveFillerWords: &on}})
	if err != nil {
		t.Fatal(err)
	}
	v, ok := obj.Attributes()["remove_filler_words"].(types.Bool)
	if !ok || !v.ValueBool() {
		t.Fatalf("remove_filler_words = %v, want true", v)
	}
	out, err := renderToAPI(obj)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(out)
	if string(b) != `{"quickstartConfig":{"enableRemoveFillerWords":true}}` {
		t.Fatalf("wire form %s", b)
	}
}

func TestEmptyPrefsReadAsNull(t *testing.T) {
	for name, got := range map[string]func() (types.Object, error){
		"nil render":   func() (types.Object, error) { return renderFromAPI(nil) },
		"empty render": func() (types.Object, error) { return renderFromAPI(&apitypes.RenderPref{}) },
		"empty quickstart": func() (types.Object, error) {
			return renderFromAPI(&apitypes.RenderPref{QuickstartConfig: &apitypes.QuickstartConfig{}})
		},
		"nil curation":   func() (types.Object, error) { return curationFromAPI(nil) },
		"empty curation": func() (types.Object, error) { return curationFromAPI(&apitypes.CurationPref{}) },
	} {
		obj, err := got()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !obj.IsNull() {
			t.Errorf("%s: got %s, want null", name, obj)
		}
	}
	// And null objects send nothing.
	if rp, err := renderToAPI(types.ObjectNull(renderType.AttrTypes)); err != nil || rp != nil {
		t.Fatalf("null render sent %v, %v", rp, err)
	}
}

func TestSnakeToCamel(t *testing.T) {
	for in, want := range map[string]string{
		"x_pct": "xPct", "enable_broll": "enableBroll", "screen_overlay_file_id": "screenOverlayFileId",
		"md5_hash": "md5Hash", "crc32c": "crc32c", "use_word_highlight_color": "useWordHighlightColor", "id": "id",
	} {
		if got := snakeToCamel(in); got != want {
			t.Errorf("snakeToCamel(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestJSONToValueNullsAndMismatches: null JSON gives a null of the asked
// type, and JSON of another shape is an error naming where and what.
func TestJSONToValueNullsAndMismatches(t *testing.T) {
	objType := types.ObjectType{AttrTypes: map[string]attr.Type{
		"x_pct": types.Float64Type, "tags": types.ListType{ElemType: types.StringType},
	}}
	for _, typ := range []attr.Type{types.StringType, types.BoolType, types.Float64Type, types.Int64Type, objType,
		types.ListType{ElemType: types.Int64Type}} {
		v, err := jsonToValue(typ, nil)
		if err != nil || !v.IsNull() || !v.Type(context.Background()).Equal(typ) {
			t.Errorf("null %s: got %v, %v", typ, v, err)
		}
	}
	cases := []struct {
		name string
		typ  attr.Type
		data any
		want string
	}{
		{"string", types.StringType, json.Number("1"), "expected a string, got json.Number"},
		{"bool", types.BoolType, "true", "expected a boolean, got string"},
		{"float", types.Float64Type, true, "expected a number, got bool"},
		{"int overflow", types.Int64Type, json.Number("1e40"), "number 1e40"},
		{"object", objType, []any{}, "expected a JSON object, got []interface {}"},
		{"object attribute", objType, map[string]any{"xPct": "10"}, "x_pct: expected a number, got string"},
		{"list item", objType, map[string]any{"tags": []any{"a", false}}, "tags: [1]: expected a string, got bool"},
		{"list", types.ListType{ElemType: types.StringType}, "a,b", "expected a JSON array, got string"},
		{"unsupported", types.MapType{ElemType: types.StringType}, nil, "unsupported attribute type"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := jsonToValue(tc.typ, tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one holding %q", err, tc.want)
			}
		})
	}
}
