package blob_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/blobtest"
)

func newDir(t *testing.T) *blob.Dir {
	t.Helper()
	d, err := blob.NewDir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// CopyAll copies every object under the roots, byte for byte, and nothing
// else; run again it skips what is in place with its size and rewrites
// what is not (a copy cut short).
func TestCopyAllCopiesTheRootsAndResumes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src, dst := newDir(t), newDir(t)
	objects := map[string]string{
		blob.MediaKey("p1", "source.mp4"):            "source bytes",
		blob.MediaKey("p1", "c01.mp4"):               "clip one",
		blob.UploadKey("up_1"):                       "upload",
		blob.PublishedKey("pa_1", "post_1", "a.mp4"): "published",
	}
	for k, v := range objects {
		blobtest.Put(t, src, k, v)
	}
	blobtest.Put(t, src, "tmp/run1/partial.mp4", "scratch, not media")

	got, err := blob.CopyAll(ctx, dst, src, blob.Roots(), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Copied != len(objects) || got.Skipped != 0 {
		t.Fatalf("first copy: %+v, want %d copied", got, len(objects))
	}
	for k, v := range objects {
		if b := blobtest.Read(t, dst, k); b != v {
			t.Errorf("%s = %q, want %q", k, b, v)
		}
	}
	if _, err := dst.Stat(ctx, "tmp/run1/partial.mp4"); err == nil {
		t.Error("a key outside the roots was copied")
	}

	// As after an interruption: one object lost, one written short.
	if err := dst.Delete(ctx, blob.UploadKey("up_1")); err != nil {
		t.Fatal(err)
	}
	blobtest.Put(t, dst, blob.MediaKey("p1", "c01.mp4"), "clip")
	var seen int
	got, err = blob.CopyAll(ctx, dst, src, blob.Roots(), blob.CopyWorkers, func(blob.Info, blob.CopyReport) { seen++ })
	if err != nil {
		t.Fatal(err)
	}
	if got.Copied != 2 || got.Skipped != len(objects)-2 || seen != len(objects) {
		t.Fatalf("second copy: %+v (progress called %d times), want 2 copied, the rest skipped", got, seen)
	}
	for k, v := range objects {
		if b := blobtest.Read(t, dst, k); b != v {
			t.Errorf("after the second copy %s = %q, want %q", k, b, v)
		}
	}
}

// A write the target refuses ends the copy with an error naming the object.
func TestCopyAllStopsAtAFailure(t *testing.T) {
	t.Parallel()
	src, dst := newDir(t), newDir(t)
	for i := range 20 {
		blobtest.Put(t, src, blob.MediaKey("p1", fmt.Sprintf("c%02d.mp4", i)), "clip")
	}
	// A file where the target's media directory would be.
	if err := os.WriteFile(filepath.Join(dst.Root(), "media"), []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := blob.CopyAll(context.Background(), dst, src, blob.Roots(), blob.CopyWorkers, nil)
	if err == nil || !strings.Contains(err.Error(), "media/p1/c") {
		t.Fatalf("copy into a target that refuses writes: %+v, %v; want an error naming the object", r, err)
	}
	if r.Copied != 0 {
		t.Errorf("copied %d objects into a target that refuses them", r.Copied)
	}
}
