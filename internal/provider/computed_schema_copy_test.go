package provider

import (
	"testing"

	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
)

// TestRenderPrefMatchesRender: the data source's render_pref has the type of
// the resource's render argument, so renderFromAPI fills both alike, and it
// is computed only, at every depth.
func TestRenderPrefMatchesRender(t *testing.T) {
	ds := computedRenderAttribute("x")
	if got, want := ds.GetType(), renderAttribute().GetType(); !got.Equal(want) {
		t.Fatalf("render_pref type %s differs from render %s", got, want)
	}
	checkComputedOnly(t, "render_pref", ds)
}

func checkComputedOnly(t *testing.T, name string, a dsschema.Attribute) {
	t.Helper()
	if !a.IsComputed() || a.IsOptional() || a.IsRequired() {
		t.Errorf("%s should be computed only", name)
	}
	switch a := a.(type) {
	case dsschema.SingleNestedAttribute:
		for n, sub := range a.Attributes {
			checkComputedOnly(t, name+"."+n, sub)
		}
	case dsschema.ListNestedAttribute:
		for n, sub := range a.NestedObject.Attributes {
			checkComputedOnly(t, name+"[*]."+n, sub)
		}
	}
}
