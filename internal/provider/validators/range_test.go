package validators

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestCurationRange(t *testing.T) {
	rt := map[string]attr.Type{"start_sec": types.Float64Type, "end_sec": types.Float64Type}
	mk := func(start, end attr.Value) types.Object {
		return types.ObjectValueMust(rt, map[string]attr.Value{"start_sec": start, "end_sec": end})
	}
	f := types.Float64Value
	p := path.Root("curation").AtName("range")
	cases := []struct {
		name  string
		value types.Object
		at    path.Path
		want  string
	}{
		{"ok", mk(f(0), f(60)), p, ""},
		{"reversed", mk(f(60), f(30)), p, `^curation\.range: start_sec \(60\) must be less than end_sec \(30\)$`},
		{"empty", mk(f(30), f(30)), p, `start_sec \(30\) must be less than end_sec \(30\)`},
		{"negative start", mk(f(-5), f(30)), p.AtName("start_sec"), `^curation\.range\.start_sec: must be >= 0, not -5$`},
		{"negative end", mk(f(0), f(-1)), p.AtName("end_sec"), `^curation\.range\.end_sec: must be >= 0, not -1$`},
		{"null end", mk(f(30), types.Float64Null()), p,
			`^curation\.range: start_sec and end_sec are both required when range is sent; omit range to clip the whole video$`},
		{"unknown start", mk(types.Float64Unknown(), f(30)), p, ""},
		{"null range", types.ObjectNull(rt), p, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, runObject(CurationRange(), p, tc.value), tc.at, tc.want)
		})
	}
}
