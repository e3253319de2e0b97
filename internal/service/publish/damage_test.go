package publish

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// TestDamagedClipIsNotPublished: a render cut after its sum was recorded
// fails its post at once with an error naming the damage, and nothing
// reaches the destination (it used to publish the cut file).
func TestDamagedClipIsNotPublished(t *testing.T) {
	e := newEnv(t)
	key := blob.MediaKey(testProject, testClip+".mp4")
	sum, err := blob.FileSum(filepath.Join(e.dataDir, filepath.FromSlash(key)))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.st.RecordMediaSum(context.Background(), key, store.MediaSum(sum)); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(e.dataDir, filepath.FromSlash(key)), sum.Size/2); err != nil {
		t.Fatal(err)
	}
	account := e.account(store.PublishToDir)
	p := e.post(account)
	e.startWorker(WorkerConfig{})
	got := e.settled(p.ID)
	if got.Status != store.PostFailed || got.Attempts != 1 || !strings.Contains(got.LastError, "the stored file "+key+" is damaged") {
		t.Fatalf("post = %+v; want failed after one attempt naming the damaged file", got)
	}
	if _, err := os.Stat(filepath.Join(e.dataDir, "published", account, p.ID)); !os.IsNotExist(err) {
		t.Errorf("the post's directory exists (%v); a damaged clip must not be published", err)
	}
}
