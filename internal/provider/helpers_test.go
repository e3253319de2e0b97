package provider

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

func writeFile(name, content string) error {
	return os.WriteFile(name, []byte(content), 0o600)
}

// diagText joins the details of every error so tests can match messages.
func diagText(diags diag.Diagnostics) string {
	var parts []string
	for _, d := range diags.Errors() {
		parts = append(parts, d.Summary()+": "+d.Detail())
	}
	return strings.Join(parts, "\n")
}

// checkDiags fails unless the diagnostics match want ("" = no error).
func checkDiags(t *testing.T, diags diag.Diagnostics, want string) {
	t.Helper()
	got := diagText(diags)
	if want == "" {
		if diags.HasError() {
			t.Fatalf("unexpected error: %s", got)
		}
		return
	}
	if !diags.HasError() {
		t.Fatalf("expected an error matching %q, got none", want)
	}
	if !regexp.MustCompile(want).MatchString(got) {
		t.Fatalf("error %q does not match %q", got, want)
	}
}
