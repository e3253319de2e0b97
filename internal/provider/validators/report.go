package validators

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
)

// addRuleError reports err, a broken rule of package rules, on the attribute
// at p, or on the child of p the rule names.
func addRuleError(diags *diag.Diagnostics, p path.Path, summary string, err error) {
	rule := err.Error()
	var broken *rules.Error
	if errors.As(err, &broken) {
		rule = broken.Rule
		if broken.Field != "" {
			p = p.AtName(broken.Field)
		}
	}
	diags.AddAttributeError(p, summary, fmt.Sprintf("%s: %s", p, rule))
}

// described gives a validator its description, in plain text and Markdown alike.
type described string

func (d described) Description(context.Context) string { return string(d) }

func (d described) MarkdownDescription(context.Context) string { return string(d) }

// objAttr returns the attribute name of obj as type T; ok is false when the
// object lacks it or holds another type (a schema/validator mismatch).
func objAttr[T attr.Value](obj types.Object, name string) (T, bool) {
	var zero T
	v, found := obj.Attributes()[name]
	if !found {
		return zero, false
	}
	t, ok := v.(T)
	return t, ok
}

// known reports whether v holds a value that validation can look at.
func known(v attr.Value) bool {
	return v != nil && !v.IsNull() && !v.IsUnknown()
}
