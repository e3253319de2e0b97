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

// prefsToAPI converts a Terraform object into an apitypes struct T; a null or
// unknown object, or one whose attributes are all null, gives nil. rename adjusts the JSON object before decoding,
// for the few attributes whose shape differs from the wire (may be nil).
func prefsToAPI[T any](obj types.Object, rename func(map[string]any)) (*T, error) {
	if obj.IsNull() || obj.IsUnknown() || allNull(obj) {
		return nil, nil
	}
	raw, _ := valueToJSON(obj)
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected an object, got %T", raw)
	}
	if rename != nil {
		rename(m)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encoding preferences: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var out T
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("preferences do not match the API shape: %w", err)
	}
	return &out, nil
}

// prefsFromAPI converts in, an apitypes struct, into a Terraform object of
// type t. An absent (nil) or empty preference object is null, so that a
// project created without preferences reads back without them.
func prefsFromAPI[T any](t types.ObjectType, in *T, rename func(map[string]any)) (types.Object, error) {
	if in == nil {
		return types.ObjectNull(t.AttrTypes), nil
	}
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
		return jsonToObject(tt, data)
	case basetypes.ListType:
		return jsonToList(tt, data)
	case basetypes.StringType:
		return jsonScalar(data, "a string", types.StringNull(),
			func(s string) (attr.Value, error) { return types.StringValue(s), nil })
	case basetypes.BoolType:
		return jsonScalar(data, "a boolean", types.BoolNull(),
			func(b bool) (attr.Value, error) { return types.BoolValue(b), nil })
	case basetypes.Float64Type:
		return jsonScalar(data, "a number", types.Float64Null(), jsonFloat64)
	case basetypes.Int64Type:
		return jsonScalar(data, "a number", types.Int64Null(), jsonInt64)
	default:
		return nil, fmt.Errorf("unsupported attribute type %s", t)
	}
}

// jsonToObject builds an object of type t from a JSON object, attribute by
// attribute under their camelCase wire names.
func jsonToObject(t basetypes.ObjectType, data any) (attr.Value, error) {
	if data == nil {
		return types.ObjectNull(t.AttrTypes), nil
	}
	m, ok := data.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected a JSON object, got %T", data)
	}
	vals := make(map[string]attr.Value, len(t.AttrTypes))
	for name, at := range t.AttrTypes {
		v, err := jsonToValue(at, m[snakeToCamel(name)])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		vals[name] = v
	}
	obj, diags := types.ObjectValue(t.AttrTypes, vals)
	if diags.HasError() {
		return nil, fmt.Errorf("building object: %v", diags)
	}
	return obj, nil
}

// jsonToList builds a list of type t from a JSON array.
func jsonToList(t basetypes.ListType, data any) (attr.Value, error) {
	if data == nil {
		return types.ListNull(t.ElemType), nil
	}
	items, ok := data.([]any)
	if !ok {
		return nil, fmt.Errorf("expected a JSON array, got %T", data)
	}
	elems := make([]attr.Value, 0, len(items))
	for i, item := range items {
		v, err := jsonToValue(t.ElemType, item)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		elems = append(elems, v)
	}
	list, diags := types.ListValue(t.ElemType, elems)
	if diags.HasError() {
		return nil, fmt.Errorf("building list: %v", diags)
	}
	return list, nil
}

// jsonScalar converts data, a JSON value of Go type J (want names it), with
// conv; null data gives null.
func jsonScalar[J any](data any, want string, null attr.Value, conv func(J) (attr.Value, error)) (attr.Value, error) {
	if data == nil {
		return null, nil
	}
	v, ok := data.(J)
	if !ok {
		return nil, fmt.Errorf("expected %s, got %T", want, data)
	}
	return conv(v)
}

func jsonFloat64(n json.Number) (attr.Value, error) {
	f, err := n.Float64()
	if err != nil {
		return nil, fmt.Errorf("number %s: %w", n, err)
	}
	return types.Float64Value(f), nil
}

func jsonInt64(n json.Number) (attr.Value, error) {
	i, err := n.Int64()
	if err != nil {
		return nil, fmt.Errorf("number %s: %w", n, err)
	}
	return types.Int64Value(i), nil
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
