package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// objAttr returns the attribute name of obj as type T; ok is false when the
// object lacks it or holds another type (a schema/model mismatch).
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
