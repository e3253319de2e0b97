package pipeline

import (
	"os"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// TestMissingToolIsRetried: with ffmpeg and ffprobe off PATH a valid upload
// is not blamed (no permanent stall "not a media file", no refund): it
// stalls with a retry planned, again and again without using up the
// project's retries, and completes once PATH has the tools again.
func TestMissingToolIsRetried(t *testing.T) {
	requireFFmpeg(t)
	video := testVideo(t) // made while ffmpeg is still on PATH
	e := newEnv(t)
	e.cfg.MaxRetries = 1
	tools := os.Getenv("PATH")
	t.Setenv("PATH", t.TempDir())
	e.runner()
	id := e.create(apitypes.CreateProjectRequest{VideoURL: e.upload(video)})

	var stallError string
	p := e.waitFor(id, func(p *store.Project) bool {
		if p.Stage == apitypes.StageStalled && p.RetryAt.IsZero() {
			t.Fatalf("stalled for good without the tools: %v", deref(p.Error))
		}
		if p.Error != nil {
			stallError = *p.Error
		}
		return p.StallCount != nil && *p.StallCount >= 3 // more stalls than MaxRetries allows failures
	})
	if p.FailureStalls != 0 || p.RefundStatus != nil {
		t.Errorf("failureStalls %d, refund %v: a missing tool counted against the project", p.FailureStalls, deref(p.RefundStatus))
	}
	if !strings.Contains(stallError, "ffprobe is not installed") {
		t.Errorf("stall error %q does not name the missing tool", stallError)
	}

	t.Setenv("PATH", tools)
	p = e.waitDone(id)
	if p.Stage != apitypes.StageComplete {
		t.Fatalf("after PATH was restored: %s, error %v", p.Stage, deref(p.Error))
	}
}
