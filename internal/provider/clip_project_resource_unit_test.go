package provider

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
)

func TestWaitFailureMessages(t *testing.T) {
	msg := "IMPORT failed: videoUrl upload up_1 is not a video"
	stalled := &client.StalledError{Project: &apitypes.Project{ID: "p1", Stage: apitypes.StageStalled, Error: &msg, StallCount: ptr(int64(1))}}
	d := waitFailure("p1", time.Hour, fmt.Errorf("wrapped: %w", stalled))
	if d.Summary() != "Clip project stalled" {
		t.Errorf("summary = %q", d.Summary())
	}
	for _, want := range []string{msg, "tainted"} {
		if !strings.Contains(d.Detail(), want) {
			t.Errorf("detail %q lacks %q", d.Detail(), want)
		}
	}

	timeout := waitFailure("p1", 10*time.Minute, fmt.Errorf("waiting for project p1: still in stage RENDER: %w", context.DeadlineExceeded))
	for _, want := range []string{"create timeout (10m0s)", "still in stage RENDER", "tainted"} {
		if !strings.Contains(timeout.Detail(), want) {
			t.Errorf("timeout detail %q lacks %q", timeout.Detail(), want)
		}
	}
}

// TestCreateTimeoutBeforeFirstPollNamesQueued: Create hands the project it
// holds to the wait, so a create timeout that ends the wait before its first
// poll still names the stage of the create answer. No request is sent: the
// first poll comes one interval after the call.
func TestCreateTimeoutBeforeFirstPollNamesQueued(t *testing.T) {
	c, err := client.New(client.Config{BaseURL: "http://127.0.0.1:1", APIKey: "k", RequestsPerMinute: 60})
	if err != nil {
		t.Fatal(err)
	}
	r := &ClipProjectResource{data: &providerData{Client: c, Wait: client.WaitOptions{PollInterval: time.Hour}}}
	ctx, cancel := context.WithTimeout(t.Context(), time.Millisecond)
	defer cancel()
	created := &apitypes.Project{ID: "p1", ProjectID: "p1", Stage: apitypes.StageQueued}
	_, err = r.waitForCompletion(ctx, created)
	if err == nil {
		t.Fatal("the wait should end with the timeout")
	}
	d := waitFailure("p1", time.Millisecond, err)
	if d.Summary() != "Timed out waiting for clip project" || !strings.Contains(d.Detail(), string(apitypes.StageQueued)) {
		t.Fatalf("diagnostic %q: %q should name stage %s", d.Summary(), d.Detail(), apitypes.StageQueued)
	}
}

// TestFillUnknownKeepsPlannedValues: Update answers with the planned values
// and takes from the service only what the plan left unknown.
func TestFillUnknownKeepsPlannedValues(t *testing.T) {
	plan := configuredModel(t)
	plan.setReported(&apitypes.Project{ID: "p1", ProjectID: "p1", Stage: apitypes.StageComplete,
		StorageExpireAt: "2030-01-01T00:00:00Z", UpdatedAt: "2029-12-01T00:00:00Z", Visibility: "PUBLIC"})
	plan.ClipCount = types.Int64Value(4)
	plan.UpdatedAt = types.StringUnknown()

	var reported clipProjectModel
	reported.setReported(&apitypes.Project{ID: "p1", ProjectID: "p1", Stage: apitypes.StageComplete,
		StorageExpireAt: "2030-02-01T00:00:00Z", UpdatedAt: "2029-12-02T00:00:00Z", Visibility: "PUBLIC"})
	fillUnknown(&plan, reported)

	if plan.UpdatedAt.ValueString() != "2029-12-02T00:00:00Z" {
		t.Errorf("updated_at = %s, want the service's", plan.UpdatedAt)
	}
	if plan.StorageExpireAt.ValueString() != "2030-01-01T00:00:00Z" || plan.ClipCount.ValueInt64() != 4 {
		t.Errorf("storage_expire_at = %s, clip_count = %s; want the planned values", plan.StorageExpireAt, plan.ClipCount)
	}
	if plan.Title.ValueString() != "My talk" || plan.Render.IsNull() {
		t.Errorf("arguments changed: title %s, render %s", plan.Title, plan.Render)
	}
}

// TestReadWarnsWhileStalled: a project that stalled after a create that did
// not wait is read with a warning that names its error, every refresh.
func TestReadWarnsWhileStalled(t *testing.T) {
	ctx := t.Context()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/clip-projects/p1" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"p1","projectId":"p1","stage":"STALLED","error":"IMPORT failed: not a video","stallCount":2,
			"sourcePlatform":"UPLOADED","visibility":"DEFAULT","curationPref":{"model":"ClipBasic"}}`)
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(client.Config{BaseURL: srv.URL, APIKey: "k", RequestsPerMinute: 600})
	if err != nil {
		t.Fatal(err)
	}
	r := &ClipProjectResource{data: &providerData{Client: c}}
	s := clipProjectSchema(ctx)
	state := tfsdk.State{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(ctx), nil)}
	for name, v := range map[string]string{"id": "p1", "project_id": "p1", "stage": "QUEUED", "source_file": "/videos/talk.mp4"} {
		if diags := state.SetAttribute(ctx, path.Root(name), v); diags.HasError() {
			t.Fatal(diagText(diags))
		}
	}
	resp := &resource.ReadResponse{State: state}
	r.Read(ctx, resource.ReadRequest{State: state}, resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(diagText(resp.Diagnostics))
	}
	warnings := resp.Diagnostics.Warnings()
	if len(warnings) != 1 || warnings[0].Summary() != "Clip project stalled" ||
		!strings.Contains(warnings[0].Detail(), "IMPORT failed: not a video") || !strings.Contains(warnings[0].Detail(), "stall_count 2") {
		t.Fatalf("warnings = %v, want one naming the project's error", warnings)
	}
	var stage types.String
	resp.State.GetAttribute(ctx, path.Root("stage"), &stage)
	if stage.ValueString() != string(apitypes.StageStalled) {
		t.Fatalf("stage in state = %s, want STALLED", stage)
	}
}
