package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// reconcile decides what Read stores for an argument, given its prior state
// value and the value rebuilt from the service's answer (null where the
// answer lacks it).
//
//   - An argument null in state stays null: the service fills in defaults the
//     user never wrote, and storing them would make every plan show a change
//     that replaces the project.
//   - A value the service does not report keeps its state value (the real
//     service does not echo every argument).
//   - Otherwise the service's value wins, so drift is seen. Objects and lists
//     of objects of the same length are reconciled attribute by attribute,
//     which applies the two rules above at every depth.
//
// On import there is no prior state, and the caller stores the service's value.
func reconcile(ctx context.Context, prior, server attr.Value) attr.Value {
	if prior == nil || prior.IsNull() || prior.IsUnknown() {
		return prior
	}
	if server == nil || server.IsNull() || server.IsUnknown() {
		return prior
	}
	switch p := prior.(type) {
	case basetypes.ObjectValue:
		s, ok := server.(basetypes.ObjectValue)
		if !ok {
			return server
		}
		sAttrs := s.Attributes()
		merged := make(map[string]attr.Value, len(p.Attributes()))
		for name, pv := range p.Attributes() {
			merged[name] = reconcile(ctx, pv, sAttrs[name])
		}
		obj, diags := basetypes.NewObjectValue(p.AttributeTypes(ctx), merged)
		if diags.HasError() {
			return server
		}
		return obj
	case basetypes.ListValue:
		s, ok := server.(basetypes.ListValue)
		if !ok || len(s.Elements()) != len(p.Elements()) {
			return server
		}
		if _, isObj := p.ElementType(ctx).(basetypes.ObjectType); !isObj {
			return server
		}
		sElems := s.Elements()
		merged := make([]attr.Value, len(sElems))
		for i, pe := range p.Elements() {
			merged[i] = reconcile(ctx, pe, sElems[i])
		}
		list, diags := basetypes.NewListValue(p.ElementType(ctx), merged)
		if diags.HasError() {
			return server
		}
		return list
	default:
		return server
	}
}

// reconcileString, reconcileObject and reconcileList are reconcile for the
// argument types of a model.
func reconcileString(ctx context.Context, prior, server types.String) types.String {
	if v, ok := reconcile(ctx, prior, server).(types.String); ok {
		return v
	}
	return prior
}

func reconcileObject(ctx context.Context, prior, server types.Object) types.Object {
	if v, ok := reconcile(ctx, prior, server).(types.Object); ok {
		return v
	}
	return prior
}

func reconcileList(ctx context.Context, prior, server types.List) types.List {
	if v, ok := reconcile(ctx, prior, server).(types.List); ok {
		return v
	}
	return prior
}
