package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// TestRenderPrefMatchesRender: a clip's render_pref has the type of the
// resource's render argument, so renderFromAPI fills both alike, and it is
// computed only, at every depth.
func TestRenderPrefMatchesRender(t *testing.T) {
	ds := computedAttributes(exportableClipAttributes())["render_pref"]
	if got, want := ds.GetType(), renderAttribute().GetType(); !got.Equal(want) {
		t.Fatalf("render_pref type %s differs from render %s", got, want)
	}
	checkComputedOnly(t, "render_pref", ds)
}

// TestProjectClipsMatchDataSource: the clips of clipper_clip_project and of
// data.clipper_exportable_clips have the same item fields: names, types and
// descriptions.
func TestProjectClipsMatchDataSource(t *testing.T) {
	ctx := context.Background()
	project, ok := clipProjectSchema(ctx).Attributes["clips"].(schema.ListNestedAttribute)
	if !ok || !project.IsComputed() || project.IsOptional() {
		t.Fatalf("clipper_clip_project.clips is %T, want a computed-only list nested attribute", clipProjectSchema(ctx).Attributes["clips"])
	}
	var resp datasource.SchemaResponse
	(&ExportableClipsDataSource{}).Schema(ctx, datasource.SchemaRequest{}, &resp)
	ds, ok := resp.Schema.Attributes["clips"].(dsschema.ListNestedAttribute)
	if !ok {
		t.Fatalf("data source clips is %T", resp.Schema.Attributes["clips"])
	}
	if got, want := project.GetType(), ds.GetType(); !got.Equal(want) {
		t.Fatalf("clipper_clip_project.clips has type %s, the data source's %s", got, want)
	}
	var walk func(prefix string, res map[string]schema.Attribute, dsa map[string]dsschema.Attribute)
	walk = func(prefix string, res map[string]schema.Attribute, dsa map[string]dsschema.Attribute) {
		if len(res) != len(dsa) {
			t.Errorf("%s: %d fields on the project, %d on the data source", prefix, len(res), len(dsa))
		}
		for name, r := range res {
			d, ok := dsa[name]
			switch {
			case !ok:
				t.Errorf("%s%s: not on the data source", prefix, name)
				continue
			case r.GetMarkdownDescription() != d.GetMarkdownDescription():
				t.Errorf("%s%s: descriptions differ: %q, %q", prefix, name, r.GetMarkdownDescription(), d.GetMarkdownDescription())
			case !r.IsComputed() || r.IsOptional() || r.IsRequired():
				t.Errorf("%s%s: should be computed only on the project", prefix, name)
			}
			if rn, ok := r.(schema.SingleNestedAttribute); ok {
				if dn, ok := d.(dsschema.SingleNestedAttribute); ok {
					walk(prefix+name+".", rn.Attributes, dn.Attributes)
				}
			}
		}
	}
	walk("clips[*].", project.NestedObject.Attributes, ds.NestedObject.Attributes)
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
