package provider

import (
	"fmt"

	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// computedRenderAttribute is the resource's render argument as a computed
// data source attribute: built from renderAttribute itself, it has the same
// fields and type, so renderFromAPI fills both and the two cannot drift.
func computedRenderAttribute(desc string) dsschema.SingleNestedAttribute {
	a := renderAttribute()
	return dsschema.SingleNestedAttribute{
		MarkdownDescription: desc,
		Computed:            true,
		Attributes:          computedAttributes(a.Attributes),
	}
}

func computedAttributes(in map[string]schema.Attribute) map[string]dsschema.Attribute {
	out := make(map[string]dsschema.Attribute, len(in))
	for name, a := range in {
		out[name] = computedAttribute(a)
	}
	return out
}

// computedAttribute copies a resource attribute as a computed-only data source
// attribute: description and type kept; validators, plan modifiers and
// defaults, which only concern arguments, dropped.
func computedAttribute(a schema.Attribute) dsschema.Attribute {
	desc := a.GetMarkdownDescription()
	switch a := a.(type) {
	case schema.StringAttribute:
		return dsschema.StringAttribute{MarkdownDescription: desc, Computed: true}
	case schema.BoolAttribute:
		return dsschema.BoolAttribute{MarkdownDescription: desc, Computed: true}
	case schema.Float64Attribute:
		return dsschema.Float64Attribute{MarkdownDescription: desc, Computed: true}
	case schema.Int64Attribute:
		return dsschema.Int64Attribute{MarkdownDescription: desc, Computed: true}
	case schema.ListAttribute:
		return dsschema.ListAttribute{MarkdownDescription: desc, Computed: true, ElementType: a.ElementType}
	case schema.SingleNestedAttribute:
		return dsschema.SingleNestedAttribute{MarkdownDescription: desc, Computed: true,
			Attributes: computedAttributes(a.Attributes)}
	case schema.ListNestedAttribute:
		return dsschema.ListNestedAttribute{MarkdownDescription: desc, Computed: true,
			NestedObject: dsschema.NestedAttributeObject{Attributes: computedAttributes(a.NestedObject.Attributes)}}
	default:
		// A new kind of attribute in the render schema must be added here.
		panic(fmt.Sprintf("computedAttribute: unsupported attribute type %T", a))
	}
}
