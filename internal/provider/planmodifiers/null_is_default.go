package planmodifiers

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// NullIsDefault plans an optional and computed string argument that replaces
// the resource, where leaving it out asks the service for its documented
// default def (source_lang: `auto`). Null and def are the same request, so a
// change between them replaces nothing; in particular a project imported
// from a service that echoes the default it filled in plans no change when
// the configuration leaves the argument out. Any other change replaces.
//
// A null configuration plans the prior value when it stands for the same
// request (null on create); a configured value is planned as written.
func NullIsDefault(def string) planmodifier.String {
	return nullIsDefault{def: def}
}

// NullIsServiceChoice is NullIsDefault for an argument whose default the
// service chooses without saying which (title: the service may name the
// project itself). Leaving it out keeps whatever the project has; a
// configured value different from it replaces the resource.
func NullIsServiceChoice() planmodifier.String {
	return nullIsDefault{anyValue: true}
}

type nullIsDefault struct {
	def      string
	anyValue bool // null stands for whatever value the service reports
}

func (m nullIsDefault) Description(context.Context) string {
	if m.anyValue {
		return "Changing the value replaces the resource; leaving it out keeps the value the service reports."
	}
	return "Changing the value replaces the resource; leaving it out is the same as `" + m.def + "`."
}

func (m nullIsDefault) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (m nullIsDefault) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy
	}
	planned := req.ConfigValue
	resp.PlanValue = planned
	if req.State.Raw.IsNull() {
		return // create: null stays null, the service applies its default
	}
	if planned.IsUnknown() || !m.same(planned, req.StateValue) {
		resp.RequiresReplace = true
		return
	}
	if planned.IsNull() {
		resp.PlanValue = req.StateValue
	}
}

// same reports whether planned asks for the project prior describes.
func (m nullIsDefault) same(planned, prior types.String) bool {
	if planned.IsNull() && m.anyValue {
		return true
	}
	return m.request(planned) == m.request(prior)
}

// request is the value the service works with for v.
func (m nullIsDefault) request(v types.String) string {
	if v.IsNull() {
		return m.def
	}
	return v.ValueString()
}
