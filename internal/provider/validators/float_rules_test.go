package validators

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func runFloat(v validator.Float64, p path.Path, value types.Float64) diag.Diagnostics {
	resp := &validator.Float64Response{}
	v.ValidateFloat64(context.Background(), validator.Float64Request{Path: p, ConfigValue: value}, resp)
	return resp.Diagnostics
}

func TestFloatRules(t *testing.T) {
	x := path.Root("render").AtName("emoji_style").AtName("rect").AtName("x_pct")
	size := path.Root("render").AtName("font").AtName("numerical_size")
	for _, tc := range []struct {
		name  string
		v     validator.Float64
		at    path.Path
		value types.Float64
		want  string
	}{
		{"on the frame", Percent(), x, types.Float64Value(40), ""},
		{"off the frame", Percent(), x, types.Float64Value(250),
			`^render\.emoji_style\.rect\.x_pct: must be a percentage of the frame, from 0 to 100, not 250$`},
		{"unknown", Percent(), x, types.Float64Unknown(), ""},
		{"a size", FontSize(), size, types.Float64Value(48), ""},
		{"negative size", FontSize(), size, types.Float64Value(-4), `^render\.font\.numerical_size: must be a font size above 0, not -4$`},
		{"null size", FontSize(), size, types.Float64Null(), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, runFloat(tc.v, tc.at, tc.value), tc.at, tc.want)
		})
	}
}
