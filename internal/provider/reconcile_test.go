package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestReconcile(t *testing.T) {
	ctx := context.Background()
	objType := map[string]attr.Type{"a": types.StringType, "b": types.StringType}
	obj := func(a, b attr.Value) types.Object {
		return types.ObjectValueMust(objType, map[string]attr.Value{"a": a, "b": b})
	}
	list := func(objs ...attr.Value) types.List {
		return types.ListValueMust(types.ObjectType{AttrTypes: objType}, objs)
	}
	s := types.StringValue
	null := types.StringNull()

	cases := []struct {
		name                string
		prior, server, want attr.Value
	}{
		{"null stays null", null, s("server default"), null},
		{"unreported keeps state", s("mine"), null, s("mine")},
		{"drift wins", s("mine"), s("theirs"), s("theirs")},
		{"object attributes one by one", obj(s("x"), null), obj(s("y"), s("default")), obj(s("y"), null)},
		{"object not reported", obj(s("x"), null), types.ObjectNull(objType), obj(s("x"), null)},
		{"list of objects element-wise", list(obj(s("x"), null)), list(obj(s("x"), s("default"))), list(obj(s("x"), null))},
		{"list length changed", list(obj(s("x"), null)), list(obj(s("x"), null), obj(s("y"), null)),
			list(obj(s("x"), null), obj(s("y"), null))},
		{"list of strings replaced", types.ListValueMust(types.StringType, []attr.Value{s("a")}),
			types.ListValueMust(types.StringType, []attr.Value{s("b")}), types.ListValueMust(types.StringType, []attr.Value{s("b")})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := reconcile(ctx, tc.prior, tc.server); !got.Equal(tc.want) {
				t.Fatalf("reconcile(%s, %s) = %s, want %s", tc.prior, tc.server, got, tc.want)
			}
		})
	}
}
