package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// A state of schema version 0: top-level model and is_deleted, no curation,
// an overlay with its stored-file metadata.
const clipProjectStateV0 = `{
  "id": "p1", "project_id": "p1", "stage": "COMPLETE", "model": "ClipAnything",
  "is_deleted": false, "is_purged": false, "curation": null,
  "render": {"layout_aspect_ratio": "square", "screen_overlays": [
    {"object": {"id": "upl_logo", "bucket": "b", "md5_hash": "x", "etag": "e"}, "style": "corner"}
  ]}
}`

func TestUpgradeStateFromVersion0(t *testing.T) {
	ctx := context.Background()
	r := &ClipProjectResource{}
	s := clipProjectSchema(ctx)
	upgrader := r.UpgradeState(ctx)[0]
	resp := &resource.UpgradeStateResponse{}
	upgrader.StateUpgrader(ctx, resource.UpgradeStateRequest{RawState: &tfprotov6.RawState{JSON: []byte(clipProjectStateV0)}}, resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(diagText(resp.Diagnostics))
	}
	// The upgraded state decodes with the current schema: nothing removed is left.
	raw, err := resp.DynamicValue.Unmarshal(s.Type().TerraformType(ctx))
	if err != nil {
		t.Fatalf("the upgraded state does not fit the schema: %v", err)
	}
	state := tfsdk.State{Schema: s, Raw: raw}
	var m clipProjectModel
	if diags := state.Get(ctx, &m); diags.HasError() {
		t.Fatal(diagText(diags))
	}
	// clips came later, without a version: absent, it reads as null until
	// the next refresh lists the clips.
	if !m.Clips.IsNull() {
		t.Errorf("clips = %s, want null in a state written before clips existed", m.Clips)
	}
	if model, _ := m.Curation.Attributes()["model"].(types.String); model.ValueString() != "ClipAnything" {
		t.Errorf("curation = %s, want the reported model ClipAnything", m.Curation)
	}
	var fileID, aspect types.String
	state.GetAttribute(ctx, path.Root("render").AtName("screen_overlays").AtListIndex(0).AtName("file_id"), &fileID)
	state.GetAttribute(ctx, path.Root("render").AtName("layout_aspect_ratio"), &aspect)
	if fileID.ValueString() != "upl_logo" || aspect.ValueString() != "square" {
		t.Errorf("render.screen_overlays[0].file_id = %s, layout_aspect_ratio = %s; want upl_logo, square", fileID, aspect)
	}

	// A state without render gets the defaults-only object a create stores now.
	resp = &resource.UpgradeStateResponse{}
	upgrader.StateUpgrader(ctx, resource.UpgradeStateRequest{RawState: &tfprotov6.RawState{JSON: []byte(`{"id":"p2","render":null}`)}}, resp)
	raw, err = resp.DynamicValue.Unmarshal(s.Type().TerraformType(ctx))
	if err != nil {
		t.Fatal(err)
	}
	state = tfsdk.State{Schema: s, Raw: raw}
	if diags := state.Get(ctx, &m); diags.HasError() {
		t.Fatal(diagText(diags))
	}
	if !m.Render.Equal(emptyRender()) || !m.Curation.Equal(emptyCuration()) {
		t.Errorf("render = %s, curation = %s; want the defaults-only objects", m.Render, m.Curation)
	}
}
