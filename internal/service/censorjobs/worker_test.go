package censorjobs

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/scratch"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// TestResume: jobs a stopped process left QUEUED or PROCESSING run at
// Start; a job whose clip is gone FAILS with why.
func TestResume(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	queued := &store.CensorJob{OrgID: "org", ProjectID: "p1", ClipID: "c01"}
	processing := &store.CensorJob{OrgID: "org", ProjectID: "p1", ClipID: "c02", Beep: true}
	for _, j := range []*store.CensorJob{queued, processing} {
		if err := st.CreateCensorJob(t.Context(), j); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.StartCensorJob(t.Context(), processing.ID); err != nil {
		t.Fatal(err)
	}
	media, err := blob.NewDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(Config{Store: st, Media: media, Scratch: scratch.New(filepath.Join(dir, "tmp"))})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for _, id := range []string{queued.ID, processing.ID} {
		var j *store.CensorJob
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			if j, err = st.CensorJob(t.Context(), id); err != nil {
				t.Fatal(err)
			}
			if j.Status == apitypes.CensorFailed || j.Status == apitypes.CensorConcluded {
				break
			}
		}
		if j.Status != apitypes.CensorFailed || j.Error == "" {
			t.Errorf("job %s: %s %q, want FAILED: the clip no longer exists", id, j.Status, j.Error)
		}
	}
}
