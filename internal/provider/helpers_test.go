package provider

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
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

// listedValues returns attribute name of every item of the list attribute
// list of addr in the state s, in order.
func listedValues(s *terraform.State, addr, list, name string) ([]string, error) {
	rs, ok := s.RootModule().Resources[addr]
	if !ok {
		return nil, fmt.Errorf("%s not in state", addr)
	}
	n, err := strconv.Atoi(rs.Primary.Attributes[list+".#"])
	if err != nil {
		return nil, fmt.Errorf("%s: %s.#: %w", addr, list, err)
	}
	values := make([]string, 0, n)
	for i := range n {
		values = append(values, rs.Primary.Attributes[fmt.Sprintf("%s.%d.%s", list, i, name)])
	}
	return values, nil
}
