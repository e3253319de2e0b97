package validators

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestClipDurations(t *testing.T) {
	pairType := types.ListType{ElemType: types.Float64Type}
	pairs := func(items ...[]attr.Value) types.List {
		elems := make([]attr.Value, 0, len(items))
		for _, it := range items {
			elems = append(elems, types.ListValueMust(types.Float64Type, it))
		}
		return types.ListValueMust(pairType, elems)
	}
	f := func(v float64) attr.Value { return types.Float64Value(v) }
	p := path.Root("curation").AtName("clip_durations")
	cases := []struct {
		name  string
		value types.List
		at    path.Path
		want  string
	}{
		{"ok", pairs([]attr.Value{f(10), f(30)}, []attr.Value{f(0), f(60)}), p, ""},
		{"min equals max", pairs([]attr.Value{f(30), f(30)}), p.AtListIndex(0),
			`^curation\.clip_durations\[0\]: must be a pair \[min, max\] of seconds with 0 <= min < max, not \[30, 30\]$`},
		{"min above max", pairs([]attr.Value{f(10), f(30)}, []attr.Value{f(60), f(15)}), p.AtListIndex(1),
			`^curation\.clip_durations\[1\]: must be a pair .* not \[60, 15\]$`},
		{"negative", pairs([]attr.Value{f(-1), f(30)}), p.AtListIndex(0), `clip_durations\[0\]: .*0 <= min < max, not \[-1, 30\]`},
		{"triple", pairs([]attr.Value{f(1), f(2), f(3)}), p.AtListIndex(0),
			`^curation\.clip_durations\[0\]: must be an array of exactly two numbers \[min, max\] of seconds, not \[1,2,3\]$`},
		{"single", pairs([]attr.Value{f(1)}), p.AtListIndex(0), `exactly two numbers .*, not \[1\]$`},
		{"null bound", pairs([]attr.Value{types.Float64Null(), f(3)}), p.AtListIndex(0), `exactly two numbers .*, not \[null,3\]$`},
		{"null pair", types.ListValueMust(pairType, []attr.Value{types.ListNull(types.Float64Type)}), p.AtListIndex(0),
			`exactly two numbers .*, not null$`},
		{"unknown bound", pairs([]attr.Value{types.Float64Unknown(), f(3)}), p, ""},
		{"null list", types.ListNull(pairType), p, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := &validator.ListResponse{}
			ClipDurations().ValidateList(context.Background(), validator.ListRequest{Path: p, ConfigValue: tc.value}, resp)
			wantError(t, resp.Diagnostics, tc.at, tc.want)
		})
	}
}
