package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// The curation and render preferences are deep JSON objects whose attribute
// names are the snake_case forms of the wire names (enableSplitLayout ->
// enable_split_layout). Rather than copy some hundred fields by hand in each
// direction, prefsToAPI and prefsFromAPI bridge a Terraform object and an
// apitypes struct through JSON, guided by the schema's object type. Decoding
// into the apitypes struct refuses unknown fields, so a schema name that does
// not match a wire field is an error, not a silently dropped setting.

// prefsToAPI converts a Terraform object (null: nil result) into out, a pointer
// to an apitypes struct. rename adjusts the JSON object before decoding, for
// the few attributes whose shape differs from the wire (may be nil).
func prefsToAPI(obj types.Object, out any, rename func(map[string]any)) (bool, error) {
	if obj.IsNull() || obj.IsUnknown() {
		return false, nil
	}
	raw, _ := valueToJSON(obj)
	m, ok := raw.(map[string]any)
	if !ok {
		return false, fmt.Errorf("expected an object, got %T", raw)
	}
	if rename != nil {
		rename(m)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return false, fmt.Errorf("encoding preferences: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return false, fmt.Errorf("preferences do not match the API shape: %w", err)
	}
	return true, nil
}

// prefsFromAPI converts in (an apitypes struct pointer, possibly nil) into a
// Terraform object of type t. An absent or empty preference object is null,
// so that a project created without preferences reads back without them.
func prefsFromAPI(t types.ObjectType, in any, rename func(map[string]any)) (types.Object, error) {
	b, err := json.Marshal(in)
	if err != nil {
		return types.ObjectNull(t.AttrTypes), fmt.Errorf("encoding preferences: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return types.ObjectNull(t.AttrTypes), fmt.Errorf("decoding preferences: %w", err)
	}
	if m, ok := raw.(map[string]any); ok && rename != nil {
		rename(m)
	}
	v, err := jsonToValue(t, raw)
	if err != nil {
		return types.ObjectNull(t.AttrTypes), err
	}
	obj, ok := v.(types.Object)
	if !ok {
		return types.ObjectNull(t.AttrTypes), fmt.Errorf("expected an object value, got %T", v)
	}
	if allNull(obj) {
		return types.ObjectNull(t.AttrTypes), nil
	}
	return obj, nil
}

// valueToJSON turns a Terraform value into plain JSON data with camelCase
// keys. The boolean is false for null and unknown values, which are omitted.
func valueToJSON(v attr.Value) (any, bool) {
	if v == nil || v.IsNull() || v.IsUnknown() {
		return nil, false
	}
	switch vv := v.(type) {
	case basetypes.ObjectValue:
		m := map[string]any{}
		for name, a := range vv.Attributes() {
			if j, ok := valueToJSON(a); ok {
				m[snakeToCamel(name)] = j
			}
		}
		return m, true
	case basetypes.ListValue:
		out := make([]any, 0, len(vv.Elements()))
		for _, e := range vv.Elements() {
			j, _ := valueToJSON(e)
			out = append(out, j)
		}
		return out, true
	case basetypes.StringValue:
		return vv.ValueString(), true
	case basetypes.BoolValue:
		return vv.ValueBool(), true
	case basetypes.Float64Value:
		return vv.ValueFloat64(), true
	case basetypes.Int64Value:
		return vv.ValueInt64(), true
	default:
		return nil, false
	}
}

// jsonToValue builds a value of type t from JSON data decoded with UseNumber.
// Missing or null data gives a null value; keys without an attribute are ignored
// (the service may report more than the schema models).
func jsonToValue(t attr.Type, data any) (attr.Value, error) {
	switch tt := t.(type) {
	case basetypes.ObjectType:
		if data == nil {
			return types.ObjectNull(tt.AttrTypes), nil
		}
		m, ok := data.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("expected a JSON object, got %T", data)
		}
		vals := make(map[string]attr.Value, len(tt.AttrTypes))
		for name, at := range tt.AttrTypes {
			v, err := jsonToValue(at, m[snakeToCamel(name)])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			vals[name] = v
		}
		obj, diags := types.ObjectValue(tt.AttrTypes, vals)
		if diags.HasError() {
			return nil, fmt.Errorf("building object: %v", diags)
		}
		return obj, nil
	case basetypes.ListType:
		if data == nil {
			return types.ListNull(tt.ElemType), nil
		}
		items, ok := data.([]any)
		if !ok {
			return nil, fmt.Errorf("expected a JSON array, got %T", data)
		}
		elems := make([]attr.Value, 0, len(items))
		for i, item := range items {
			v, err := jsonToValue(tt.ElemType, item)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			elems = append(elems, v)
		}
		list, diags := types.ListValue(tt.ElemType, elems)
		if diags.HasError() {
			return nil, fmt.Errorf("building list: %v", diags)
		}
		return list, nil
	case basetypes.StringType:
		if data == nil {
			return types.StringNull(), nil
		}
		s, ok := data.(string)
		if !ok {
			return nil, fmt.Errorf("expected a string, got %T", data)
		}
		return types.StringValue(s), nil
	case basetypes.BoolType:
		if data == nil {
			return types.BoolNull(), nil
		}
		b, ok := data.(bool)
		if !ok {
			return nil, fmt.Errorf("expected a boolean, got %T", data)
		}
		return types.BoolValue(b), nil
	case basetypes.Float64Type:
		if data == nil {
			return types.Float64Null(), nil
		}
		n, ok := data.(json.Number)
		if !ok {
			return nil, fmt.Errorf("expected a number, got %T", data)
		}
		f, err := n.Float64()
		if err != nil {
			return nil, fmt.Errorf("number %s: %w", n, err)
		}
		return types.Float64Value(f), nil
	case basetypes.Int64Type:
		if data == nil {
			return types.Int64Null(), nil
		}
		n, ok := data.(json.Number)
		if !ok {
			return nil, fmt.Errorf("expected a number, got %T", data)
		}
		i, err := n.Int64()
		if err != nil {
			return nil, fmt.Errorf("number %s: %w", n, err)
		}
		return types.Int64Value(i), nil
	default:
		return nil, fmt.Errorf("unsupported attribute type %s", t)
	}
}

// allNull reports whether every attribute of obj is null.
func allNull(obj types.Object) bool {
	for _, v := range obj.Attributes() {
		if !v.IsNull() {
			return false
		}
	}
	return true
}

// snakeToCamel maps an attribute name to its wire name: x_pct -> xPct.
func snakeToCamel(s string) string {
	var b strings.Builder
	upper := false
	for _, r := range s {
		if r == '_' {
			upper = true
			continue
		}
		if upper {
			r = unicode.ToUpper(r)
			upper = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
