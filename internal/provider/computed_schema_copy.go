package provider

import (
	"fmt"

	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// computedRenderAttribute is the resource's render argument as a computed
// attribute (render_pref of a clip): built from renderAttribute itself, it
// has the same fields and type, so renderFromAPI fills it and the two cannot
// drift.
func computedRenderAttribute(desc string) schema.SingleNestedAttribute {
	a := renderAttribute()
	return schema.SingleNestedAttribute{
		MarkdownDescription: desc,
		Computed:            true,
		Attributes:          computedResourceAttributes(a.Attributes),
	}
}

// computedAttributes copies resource attributes as computed-only data source
// attributes.
func computedAttributes(in map[string]schema.Attribute) map[string]dsschema.Attribute {
	out := make(map[string]dsschema.Attribute, len(in))
	for name, a := range in {
		_, out[name] = computedCopies(a)
	}
	return out
}

// computedResourceAttributes copies resource attributes as computed-only
// resource attributes.
func computedResourceAttributes(in map[string]schema.Attribute) map[string]schema.Attribute {
	out := make(map[string]schema.Attribute, len(in))
	for name, a := range in {
		out[name], _ = computedCopies(a)
	}
	return out
}

// computedCopies copies a resource attribute as a computed-only resource
// attribute and as a computed-only data source attribute: description and
// type kept; validators, plan modifiers and defaults, which only concern
// arguments, dropped. One switch makes both, so the resource's and the data
// source's copies of one attribute cannot differ.
func computedCopies(a schema.Attribute) (schema.Attribute, dsschema.Attribute) {
	desc := a.GetMarkdownDescription()
	switch a := a.(type) {
	case schema.StringAttribute:
		return schema.StringAttribute{MarkdownDescription: desc, Computed: true},
			dsschema.StringAttribute{MarkdownDescription: desc, Computed: true}
	case schema.BoolAttribute:
		return schema.BoolAttribute{MarkdownDescription: desc, Computed: true},
			dsschema.BoolAttribute{MarkdownDescription: desc, Computed: true}
	case schema.Float64Attribute:
		return schema.Float64Attribute{MarkdownDescription: desc, Computed: true},
			dsschema.Float64Attribute{MarkdownDescription: desc, Computed: true}
	case schema.Int64Attribute:
		return schema.Int64Attribute{MarkdownDescription: desc, Computed: true},
			dsschema.Int64Attribute{MarkdownDescription: desc, Computed: true}
	case schema.ListAttribute:
		return schema.ListAttribute{MarkdownDescription: desc, Computed: true, ElementType: a.ElementType},
			dsschema.ListAttribute{MarkdownDescription: desc, Computed: true, ElementType: a.ElementType}
	case schema.SingleNestedAttribute:
		return schema.SingleNestedAttribute{MarkdownDescription: desc, Computed: true,
				Attributes: computedResourceAttributes(a.Attributes)},
			dsschema.SingleNestedAttribute{MarkdownDescription: desc, Computed: true,
				Attributes: computedAttributes(a.Attributes)}
	case schema.ListNestedAttribute:
		return schema.ListNestedAttribute{MarkdownDescription: desc, Computed: true,
				NestedObject: schema.NestedAttributeObject{Attributes: computedResourceAttributes(a.NestedObject.Attributes)}},
			dsschema.ListNestedAttribute{MarkdownDescription: desc, Computed: true,
				NestedObject: dsschema.NestedAttributeObject{Attributes: computedAttributes(a.NestedObject.Attributes)}}
	default:
		// A new kind of attribute in a copied schema must be added here.
		panic(fmt.Sprintf("computedCopies: unsupported attribute type %T", a))
	}
}
