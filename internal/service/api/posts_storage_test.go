package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/miniotest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/s3blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/janitor"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/publish"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// renderSize is the size of the clip the posts publish: big enough that a
// copy per post would show on disk.
const renderSize = 256 << 10

// postEnv is a handler whose posts are published by a running publish
// worker into media: org-a has the COMPLETE project p1 whose clip c01 is
// rendered there (its storageSize the render's), and an account publishing
// to the "dir" destination.
type postEnv struct {
	t       *testing.T
	st      *store.Store
	h       http.Handler
	key     string
	account string
	media   blob.Store
	quota   int64 // the org's storage quota
}

func newPostEnv(t *testing.T, media blob.Store, limits quota.Limits) *postEnv {
	t.Helper()
	st, key := keyedStore(t)
	ctx := t.Context()
	p := &store.Project{ID: "p1", OrgID: "org-a", Stage: apitypes.StageComplete, CreatedAt: time.Now(), StorageSize: renderSize}
	if err := st.CreateProject(ctx, p, store.Admission{}); err != nil {
		t.Fatal(err)
	}
	clip := store.Clip{ID: "p1.c01", CurationID: "c01", URIForExport: "/media/p1/c01.mp4", StorageUsed: renderSize}
	if err := st.ReplaceClips(ctx, "p1", "org-a", []store.Clip{clip}); err != nil {
		t.Fatal(err)
	}
	if err := blob.Write(ctx, media, blob.MediaKey("p1", "c01.mp4"), bytes.NewReader(bytes.Repeat([]byte("v"), renderSize))); err != nil {
		t.Fatal(err)
	}
	acct, err := st.ConnectSocialAccountTo(ctx, "org-a", apitypes.SocialAccount{Platform: "YOUTUBE", ExtUserName: "me"}, store.PublishToDir)
	if err != nil {
		t.Fatal(err)
	}
	js, err := jobs.Open(ctx, jobs.Config{Store: st, FetchPollInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { js.Stop(t.Context()) })
	worker, err := publish.NewWorker(publish.WorkerConfig{Store: st, Jobs: js, Media: media})
	if err != nil {
		t.Fatal(err)
	}
	if err := js.Start(ctx); err != nil {
		t.Fatal(err)
	}
	h := New(Config{Store: st, Media: media, Posts: worker, PublicURL: "http://clipperd.test", Limits: limits})
	return &postEnv{t: t, st: st, h: h, key: key, account: acct.PostAccountID, media: media, quota: limits.StorageQuota}
}

// postInParallel sends n post tasks of clip c01 at once and returns the
// ids of the posts made and the answers of those refused.
func (e *postEnv) postInParallel(n int) (ids []string, refused []*httptest.ResponseRecorder) {
	e.t.Helper()
	body := `{"projectId": "p1", "clipId": "c01", "postAccountId": "` + e.account + `", "postDetail": {"title": "Launch"}}`
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			rec := send(e.t, e.h, http.MethodPost, "/api/post-tasks", e.key, body)
			mu.Lock()
			defer mu.Unlock()
			if rec.Code != http.StatusCreated {
				refused = append(refused, rec)
				if rec.Code != http.StatusForbidden {
					e.t.Errorf("post task: %d %s", rec.Code, rec.Body)
				}
				return
			}
			var env apitypes.Envelope[apitypes.PostTask]
			if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
				e.t.Error(err)
				return
			}
			ids = append(ids, env.Data.PostID)
		})
	}
	wg.Wait()
	return ids, refused
}

// published waits until every post of ids is published.
func (e *postEnv) published(ids []string) {
	e.t.Helper()
	for _, id := range ids {
		storetest.Eventually(e.t, "post "+id+" published", func() bool {
			p, err := e.st.GetPost(e.t.Context(), id)
			if err != nil {
				e.t.Fatal(err)
			}
			if p.Status != store.PostPending && p.Status != store.PostPublished {
				e.t.Fatalf("post %s: %s (%s), want published", id, p.Status, p.LastError)
			}
			return p.Status == store.PostPublished
		})
	}
}

// used is the org's storage as the quota counts it, and the server's as
// the metrics do.
func (e *postEnv) used() (org int64, stats store.Stats) {
	e.t.Helper()
	org, err := e.st.StorageUsed(e.t.Context(), "org-a")
	if err != nil {
		e.t.Fatal(err)
	}
	if stats, err = e.st.Stats(e.t.Context()); err != nil {
		e.t.Fatal(err)
	}
	return org, stats
}

// expire passes p1's storageExpireAt and runs a janitor pass.
func (e *postEnv) expire() janitor.Swept {
	e.t.Helper()
	ctx := e.t.Context()
	if _, err := e.st.MutateProject(ctx, "p1", func(p *store.Project) error {
		p.StorageExpireAt = time.Now().Add(-time.Minute)
		return nil
	}); err != nil {
		e.t.Fatal(err)
	}
	j, err := janitor.New(janitor.Config{Store: e.st, Media: e.media})
	if err != nil {
		e.t.Fatal(err)
	}
	sw, err := j.Pass(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	return sw
}

// diskUsage is what the files under dir hold, each inode counted once (as
// du counts hard links), and how many files there are.
func diskUsage(t *testing.T, dir string) (bytes int64, files int) {
	t.Helper()
	seen := map[uint64]bool{}
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		files++
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			t.Fatal("no inode numbers on this system")
		}
		if !seen[st.Ino] {
			seen[st.Ino] = true
			bytes += fi.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bytes, files
}

// 200 parallel posts on the directory store link the clip: the bytes on
// disk (each inode once, like du) stay the render's, within a quota that
// has room for it and barely more, and the org's storage and the metrics'
// count do not move. When the project's media expire, the posts' clips go
// with them (post.json stays, the record) and the count drops to nothing.
func TestPostsOnADirectoryShareTheClipsBytes(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	media := testMedia(t, dataDir)
	e := newPostEnv(t, media, quota.Limits{StorageQuota: renderSize + renderSize/2, PostRateLimit: 1000})
	usedBefore, statsBefore := e.used()

	ids, refused := e.postInParallel(200)
	if len(ids) != 200 || len(refused) != 0 {
		t.Fatalf("%d posts made, %d refused; want 200 made (they add no bytes)", len(ids), len(refused))
	}
	e.published(ids)

	onDisk, files := diskUsage(t, dataDir)
	mediaBytes, _ := diskUsage(t, filepath.Join(dataDir, "media"))
	publishedBytes, _ := diskUsage(t, filepath.Join(dataDir, "published"))
	// published/ alone holds the 200 post.json and one inode of the clip, the render's.
	docs := publishedBytes - renderSize
	t.Logf("after 200 posts: data directory %d bytes on disk in %d files (media %d, published %d: %d of post.json, the clip's inode shared); a copy each would add %d",
		onDisk, files, mediaBytes, publishedBytes, docs, 200*renderSize)
	if docs <= 0 || docs > 200*2048 {
		t.Errorf("published/ holds %d bytes beyond the render; want only the 200 post.json", docs)
	}
	used, stats := e.used()
	if used != usedBefore || stats.PostBytes != 0 || stats.ProjectBytes != statsBefore.ProjectBytes {
		t.Errorf("storage after 200 posts: org %d (was %d), metrics posts %d projects %d (were %d); want unchanged",
			used, usedBefore, stats.PostBytes, stats.ProjectBytes, statsBefore.ProjectBytes)
	}
	if mediaBytes+docs > e.quota {
		t.Errorf("%d bytes on disk past the quota of %d", mediaBytes+docs, e.quota)
	}

	sw := e.expire()
	if sw.Projects != 1 {
		t.Fatalf("janitor swept %+v, want the project", sw)
	}
	for _, id := range ids {
		dir := filepath.Join(dataDir, filepath.FromSlash(blob.PublishedKey(e.account, id, "")))
		_, clipErr := os.Stat(filepath.Join(dir, "clip.mp4"))
		_, docErr := os.Stat(filepath.Join(dir, "post.json"))
		if !errors.Is(clipErr, fs.ErrNotExist) || docErr != nil {
			t.Fatalf("post %s after its clip expired: clip.mp4 %v, post.json %v; want only post.json", id, clipErr, docErr)
		}
	}
	afterExpiry, _ := diskUsage(t, filepath.Join(dataDir, "published"))
	t.Logf("after the media expired: published/ holds %d bytes (the 200 post.json)", afterExpiry)
	if afterExpiry != docs {
		t.Errorf("published/ holds %d bytes after expiry, want the %d of the post.json", afterExpiry, docs)
	}
	if used, stats := e.used(); used != 0 || stats.PostBytes != 0 || stats.ProjectBytes != 0 {
		t.Errorf("storage after expiry: org %d, metrics %+v; want 0", used, stats)
	}
}

// On a bucket a post's copy is an object of its own: posts count in the
// org's storage and the metrics, the quota refuses those that would pass
// it (403 StorageQuotaExceeded, as uploads are), however many come at
// once; when the project's media expire the copies go and the count drops.
func TestPostsToABucketCountAndMeetTheQuota(t *testing.T) {
	t.Parallel()
	srv := miniotest.Start(t)
	bucket, err := s3blob.New(t.Context(), s3blob.Config{Bucket: srv.NewBucket(t), Endpoint: srv.Endpoint,
		AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	// Room for the project and 5 copies, not 6.
	e := newPostEnv(t, bucket, quota.Limits{StorageQuota: 6*renderSize + renderSize/2, PostRateLimit: 1000})

	ids, refused := e.postInParallel(20)
	if len(ids) != 5 || len(refused) != 15 {
		t.Fatalf("%d posts made, %d refused; want 5 made within the quota, 15 refused", len(ids), len(refused))
	}
	for _, rec := range refused {
		wantErrorBody(t, rec, http.StatusForbidden, errStorageQuota, "storage quota of 1.63 MiB per organization reached (1.5 MiB used, 256 KiB more requested)")
	}
	e.published(ids)

	objects, clips := e.publishedObjects()
	t.Logf("after 5 posts: the bucket's published/ holds %d bytes (%d of clips)", objects, clips)
	if clips != 5*renderSize {
		t.Errorf("the bucket holds %d bytes of posted clips, want 5 copies, %d", clips, 5*renderSize)
	}
	used, stats := e.used()
	if used != 6*renderSize || stats.PostBytes != 5*renderSize {
		t.Errorf("storage after 5 posts: org %d, metrics posts %d; want %d and %d", used, stats.PostBytes, 6*renderSize, 5*renderSize)
	}

	e.expire()
	if _, clips := e.publishedObjects(); clips != 0 {
		t.Errorf("the bucket keeps %d bytes of posted clips after their media expired", clips)
	}
	if used, stats := e.used(); used != 0 || stats.PostBytes != 0 {
		t.Errorf("storage after expiry: org %d, metrics posts %d; want 0", used, stats.PostBytes)
	}
	// Space came back: a post is taken again (counting nothing: its clip is gone).
	if ids, refused := e.postInParallel(1); len(ids) != 1 || len(refused) != 0 {
		t.Errorf("a post after expiry: %d made, %d refused", len(ids), len(refused))
	}
}

// publishedObjects sums the objects under published/: all, and the clips.
func (e *postEnv) publishedObjects() (all, clips int64) {
	e.t.Helper()
	infos, err := e.media.List(e.t.Context(), "published/")
	if err != nil {
		e.t.Fatal(err)
	}
	for _, in := range infos {
		all += in.Size
		if strings.HasSuffix(in.Key, "/clip.mp4") {
			clips += in.Size
		}
	}
	return all, clips
}
