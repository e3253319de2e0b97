package provider

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// clipProjectSchemaVersion 1 dropped model, is_deleted and is_purged, made
// curation and render computed (defaults-only objects rather than null) and
// replaced screen_overlays[].object by file_id. Adding the computed clips
// needed no new version: a state without them decodes with clips null, the
// plan does not keep a null list (UseStateWhenComplete), and the next
// refresh lists them.
const clipProjectSchemaVersion = 1

var _ resource.ResourceWithUpgradeState = &ClipProjectResource{}

// UpgradeState moves state of schema version 0 to the current one, so that
// a project recorded by an older provider plans no change.
func (r *ClipProjectResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{
		0: {StateUpgrader: func(_ context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
			if req.RawState == nil {
				resp.Diagnostics.AddError("Unable to upgrade clip project state", "no prior state")
				return
			}
			upgraded, err := upgradeClipProjectV0(req.RawState.JSON)
			if err != nil {
				resp.Diagnostics.AddError("Unable to upgrade clip project state", err.Error())
				return
			}
			resp.DynamicValue = &tfprotov6.DynamicValue{JSON: upgraded}
		}},
	}
}

// upgradeClipProjectV0 rewrites the JSON state of version 0. Attributes left
// out of an object are read as null.
func upgradeClipProjectV0(raw []byte) ([]byte, error) {
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("decoding state of version 0: %w", err)
	}
	// The model the service reported is curation.model now.
	model, _ := s["model"].(string)
	if model == "" {
		model = apitypes.ModelClipBasic
	}
	delete(s, "model")
	delete(s, "is_deleted")
	delete(s, "is_purged")
	if s["curation"] == nil {
		s["curation"] = map[string]any{"model": model}
	}
	render, _ := s["render"].(map[string]any)
	if render == nil {
		render = map[string]any{}
		s["render"] = render
	}
	overlays, _ := render["screen_overlays"].([]any)
	for _, it := range overlays {
		o, ok := it.(map[string]any)
		if !ok {
			continue
		}
		if obj, ok := o["object"].(map[string]any); ok {
			o["file_id"] = obj["id"]
		}
		delete(o, "object")
	}
	return json.Marshal(s)
}
