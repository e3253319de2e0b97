package validators

import (
	"context"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// wantError fails unless diags hold no error (want "") or exactly one, on the
// attribute at, whose detail matches the regular expression want.
func wantError(t *testing.T, diags diag.Diagnostics, at path.Path, want string) {
	t.Helper()
	errs := diags.Errors()
	if want == "" {
		if len(errs) != 0 {
			t.Fatalf("unexpected errors: %v", errs)
		}
		return
	}
	if len(errs) != 1 {
		t.Fatalf("want one error matching %q, got %v", want, errs)
	}
	withPath, ok := errs[0].(diag.DiagnosticWithPath)
	if !ok || !withPath.Path().Equal(at) {
		t.Errorf("error %v is not on %s", errs[0], at)
	}
	if !regexp.MustCompile(want).MatchString(errs[0].Detail()) {
		t.Errorf("detail %q does not match %q", errs[0].Detail(), want)
	}
}

func runString(v validator.String, p path.Path, value types.String) diag.Diagnostics {
	resp := &validator.StringResponse{}
	v.ValidateString(context.Background(), validator.StringRequest{Path: p, ConfigValue: value}, resp)
	return resp.Diagnostics
}

func runObject(v validator.Object, p path.Path, value types.Object) diag.Diagnostics {
	resp := &validator.ObjectResponse{}
	v.ValidateObject(context.Background(), validator.ObjectRequest{Path: p, ConfigValue: value}, resp)
	return resp.Diagnostics
}
