package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

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
