package diagline

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func path(steps ...tftypes.AttributePathStep) *tftypes.AttributePath {
	return tftypes.NewAttributePathWithSteps(steps)
}

type name = tftypes.AttributeName
type index = tftypes.ElementKeyInt
type key = tftypes.ElementKeyString

// withBlocks: a block with a list block "rule" (its own single block "match")
// and a set block "tag", beside nested attributes.
var withBlocks = &tfprotov6.SchemaBlock{BlockTypes: []*tfprotov6.SchemaNestedBlock{
	{TypeName: "rule", Nesting: tfprotov6.SchemaNestedBlockNestingModeList, Block: &tfprotov6.SchemaBlock{
		BlockTypes: []*tfprotov6.SchemaNestedBlock{{TypeName: "match", Nesting: tfprotov6.SchemaNestedBlockNestingModeSingle, Block: &tfprotov6.SchemaBlock{}}},
	}},
	{TypeName: "tag", Nesting: tfprotov6.SchemaNestedBlockNestingModeSet, Block: &tfprotov6.SchemaBlock{}},
}}

func TestFindable(t *testing.T) {
	for _, c := range []struct {
		name  string
		path  *tftypes.AttributePath
		block *tfprotov6.SchemaBlock
		want  int
	}{
		{"top-level attribute", path(name("title")), nil, 1},
		{"nested attribute: cut at its top-level argument", path(name("render"), name("font"), name("numerical_size")), nil, 1},
		{"list element kept", path(name("conclusion_actions"), index(3), name("email")), nil, 2},
		{"list of lists: the outer element", path(name("curation"), name("clip_durations"), index(1)), nil, 1},
		{"top-level list's element", path(name("clip_durations"), index(1), index(0)), nil, 2},
		{"map element kept", path(name("labels"), key("env")), nil, 2},
		{"through a list block to its attribute", path(name("rule"), index(0), name("pattern")), withBlocks, 3},
		{"through blocks to a nested attribute", path(name("rule"), index(1), name("match"), name("opts"), name("x")), withBlocks, 4},
		{"a list block without index", path(name("rule")), withBlocks, 1},
		{"a set block's element has no place", path(name("tag"), tftypes.ElementKeyValue(tftypes.NewValue(tftypes.String, "a")), name("k")), withBlocks, 1},
		{"an attribute of the same name as nothing", path(name("other"), name("x")), withBlocks, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Findable(c.path.Steps(), c.block); got != c.want {
				t.Errorf("Findable(%s) = %d, want %d", Format(c.path.Steps()), got, c.want)
			}
		})
	}
}

func TestFixCutsAndKeepsTheWholePathInTheDetail(t *testing.T) {
	named := &tfprotov6.Diagnostic{
		Summary:   "Invalid font size",
		Detail:    "render.font.numerical_size: must be above 0, not 0",
		Attribute: path(name("render"), name("font"), name("numerical_size")),
	}
	Fix(named, nil)
	if !named.Attribute.Equal(path(name("render"))) {
		t.Errorf("path = %s, want render", Format(named.Attribute.Steps()))
	}
	if named.Detail != "render.font.numerical_size: must be above 0, not 0" {
		t.Errorf("a detail naming the path changed: %q", named.Detail)
	}

	unnamed := &tfprotov6.Diagnostic{
		Summary:   "Invalid Attribute Value",
		Detail:    "must be one of: [\"a\" \"b\"]",
		Attribute: path(name("render"), name("font"), name("style"), index(0)),
	}
	Fix(unnamed, nil)
	if want := `render.font.style[0]: must be one of: ["a" "b"]`; unnamed.Detail != want {
		t.Errorf("detail = %q, want %q", unnamed.Detail, want)
	}

	top := &tfprotov6.Diagnostic{Detail: "must be set", Attribute: path(name("conclusion_actions"), index(2))}
	Fix(top, nil)
	if top.Detail != "must be set" || !top.Attribute.Equal(path(name("conclusion_actions"), index(2))) {
		t.Errorf("a findable path changed: %s %q", Format(top.Attribute.Steps()), top.Detail)
	}
	Fix(&tfprotov6.Diagnostic{Detail: "no path"}, nil) // no attribute: nothing to do
}

// fakeServer answers validation and schema requests; every other method is
// the nil interface's (not called here).
type fakeServer struct {
	tfprotov6.ProviderServer
	schemaCalls int
	diag        *tfprotov6.Diagnostic
}

func (f *fakeServer) GetProviderSchema(context.Context, *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	f.schemaCalls++
	return &tfprotov6.GetProviderSchemaResponse{ResourceSchemas: map[string]*tfprotov6.Schema{"x_rule": {Block: withBlocks}}}, nil
}

func (f *fakeServer) ValidateResourceConfig(context.Context, *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	d := *f.diag
	return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: []*tfprotov6.Diagnostic{&d}}, nil
}

func TestWrapUsesTheResourceSchemaOnce(t *testing.T) {
	f := &fakeServer{diag: &tfprotov6.Diagnostic{Detail: "rule[0].match.opts.x: bad", Attribute: path(name("rule"), index(0), name("match"), name("opts"), name("x"))}}
	s := Wrap(f)
	for range 2 {
		resp, err := s.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{TypeName: "x_rule"})
		if err != nil {
			t.Fatal(err)
		}
		got := resp.Diagnostics[0].Attribute
		if want := path(name("rule"), index(0), name("match"), name("opts")); !got.Equal(want) {
			t.Errorf("path = %s, want %s", Format(got.Steps()), Format(want.Steps()))
		}
	}
	if f.schemaCalls != 1 {
		t.Errorf("schema asked %d times, want once", f.schemaCalls)
	}
}
