package pipeline

import (
	"context"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
)

// TestRenderRecordsSums: every render a project makes (export and preview
// of each clip) is stored with its size and SHA-256, the ones its file has,
// so it can be checked before it is served whole or published.
func TestRenderRecordsSums(t *testing.T) {
	t.Parallel()
	src := testVideo(t)
	e := newEnv(t)
	e.runner()
	id := e.create(apitypes.CreateProjectRequest{
		VideoURL:     e.upload(src),
		CurationPref: &apitypes.CurationPref{SkipCurate: yes(), Range: &apitypes.Range{StartSec: f64(1), EndSec: f64(5)}},
	})
	if p := e.waitDone(id); p.Stage != apitypes.StageComplete {
		t.Fatalf("stage = %s, error %v", p.Stage, deref(p.Error))
	}
	clips, err := e.st.ListClips(context.Background(), id, 0, 100)
	if err != nil || len(clips) == 0 {
		t.Fatalf("clips: %d, %v", len(clips), err)
	}
	for _, c := range clips {
		for _, name := range []string{c.CurationID + ".mp4", c.CurationID + ".preview.mp4"} {
			key := blob.MediaKey(id, name)
			sum, err := e.st.MediaSumOf(context.Background(), key)
			if err != nil {
				t.Errorf("%s: %v; want its sum recorded", key, err)
				continue
			}
			if err := blob.Verify(context.Background(), e.media, key, blob.Sum(sum)); err != nil || sum.Size == 0 {
				t.Errorf("%s: recorded %+v, which the file does not match: %v", key, sum, err)
			}
		}
	}
}
