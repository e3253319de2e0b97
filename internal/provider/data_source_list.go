package provider

import "github.com/hashicorp/terraform-plugin-framework/types"

// filterMine serves the list data sources that read a `?q=mine` list and may
// filter it by one field: the id is `mine`, or `mine/<filter>` when filtered,
// and the items are those whose key equals the filter, converted by model.
func filterMine[T, M any](filter types.String, items []T, key func(T) string, model func(T) M) (types.String, []M) {
	id := "mine"
	if !filter.IsNull() {
		id += "/" + filter.ValueString()
	}
	out := make([]M, 0, len(items))
	for _, it := range items {
		if filter.IsNull() || key(it) == filter.ValueString() {
			out = append(out, model(it))
		}
	}
	return types.StringValue(id), out
}
