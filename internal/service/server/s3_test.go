package server

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/miniotest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
	"github.com/minio/minio-go/v7"
)

// TestS3MediaEndToEnd runs clipperd with --media on a real MinIO bucket
// (credentials from the AWS environment variables, as clipperd serve
// reads them): a chunked upload lands in the bucket, a project made from
// it ends COMPLETE with its source and renders in the bucket, /media serves
// a clip's bytes from the bucket with Range, and a post to the dir
// destination copies the clip inside the bucket. The data directory holds
// no media.
func TestS3MediaEndToEnd(t *testing.T) {
	video := sourceVideo(t)
	minioSrv := miniotest.Start(t)
	bucket := minioSrv.NewBucket(t)
	minioSrv.Env(t)
	srv := startServer(t, Config{Media: minioSrv.URL(bucket, "clipperd")})
	c := newClient(t, srv, devKey)
	ctx := t.Context()
	object := func(key string) []byte {
		t.Helper()
		o, err := minioSrv.Client.GetObject(ctx, bucket, "clipperd/"+key, minio.GetObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		b, err := io.ReadAll(o)
		if err != nil {
			t.Fatalf("object %s: %v", key, err)
		}
		return b
	}

	uploadID := c.uploadFile(video, 256<<10)
	if got := object("uploads/" + uploadID + ".bin"); !bytes.Equal(got, video) {
		t.Fatalf("the bucket's upload holds %d bytes; want the %d uploaded", len(got), len(video))
	}
	p := c.mustCreate(map[string]any{"videoUrl": uploadID,
		"curationPref": map[string]any{"range": map[string]any{"startSec": 0, "endSec": 24}, "clipDurations": [][]float64{{5, 12}}}})
	c.waitStage(p.ID, pipelineTimeout, apitypes.StageComplete)
	clip := c.clips(p.ID)[0]
	if got := object("media/" + p.ID + "/source.mp4"); !bytes.Equal(got, video) {
		t.Errorf("the bucket's source holds %d bytes; want the upload's %d", len(got), len(video))
	}

	// /media proxies the bucket's object, ranges included.
	render := object("media/" + p.ID + "/" + clip.CurationID + ".mp4")
	if !strings.HasPrefix(clip.URIForExport, srv.URL()+"/media/") {
		t.Errorf("uriForExport %q is not this server's /media", clip.URIForExport)
	}
	anon := newClient(t, srv, "")
	resp, data := anon.do(http.MethodGet, clip.URIForExport, nil, "Range", "bytes=100-299")
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(data, render[100:300]) {
		t.Fatalf("GET /media with Range bytes=100-299 = %d, %d bytes; want 206 and bytes 100-299 of the bucket's render", resp.StatusCode, len(data))
	}
	if cr := resp.Header.Get("Content-Range"); cr != "bytes 100-299/"+strconv.Itoa(len(render)) {
		t.Errorf("Content-Range %q", cr)
	}
	resp, data = anon.do(http.MethodGet, clip.URIForExport, nil, "Range", "bytes="+strconv.Itoa(len(render))+"-")
	if resp.StatusCode != http.StatusRequestedRangeNotSatisfiable || !strings.Contains(string(data), "Range") {
		t.Errorf("GET /media with a Range past the end = %d %s; want 416 with the JSON error", resp.StatusCode, data)
	}
	local := filepath.Join(t.TempDir(), "clip.mp4")
	download(t, clip.URIForExport, local)
	if w, h := probe(t, local); w == 0 || h == 0 {
		t.Errorf("the export served from the bucket is %dx%d", w, h)
	}

	account := connect(t, srv, DevOrgID, "FACEBOOK_PAGE", "page-1")
	body := postBody(p.ID, clip.CurationID, account)
	body.SubAccountID = "page-1"
	postID, err := devAPIClient(t, srv).CreatePostTask(ctx, body)
	if err != nil {
		t.Fatal(err)
	}
	storetest.Eventually(t, "post "+postID+" published", func() bool {
		post, err := srv.store.GetPost(ctx, postID)
		if err != nil || post.Status == store.PostFailed {
			t.Fatalf("post %s: %+v %v", postID, post, err)
		}
		return post.Status == store.PostPublished
	})
	if got := object("published/" + account + "/" + postID + "/clip.mp4"); !bytes.Equal(got, render) {
		t.Errorf("the post's clip holds %d bytes; want the render's %d", len(got), len(render))
	}
	if doc := decode[apitypes.PublishedPost](t, object("published/"+account+"/"+postID+"/post.json")); doc.ContentID != clip.ID {
		t.Errorf("post.json = %+v", doc)
	}

	// The data directory keeps the database and temporary files, no media:
	// the upload's chunks were parts in the bucket.
	for _, dir := range []string{"media", "published", "uploads"} {
		if _, err := os.Stat(filepath.Join(srv.dir, dir)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("DATA/%s exists with --media on a bucket: %v", dir, err)
		}
	}
}

// TestS3MediaBadBucket: a bucket that is not there stops the start with
// a message naming it.
func TestS3MediaBadBucket(t *testing.T) {
	minioSrv := miniotest.Start(t)
	minioSrv.Env(t)
	_, err := Start(t.Context(), Config{DataDir: t.TempDir(), Listen: "127.0.0.1:0", Media: minioSrv.URL("no-such-bucket", "")})
	if err == nil || !strings.Contains(err.Error(), `bucket "no-such-bucket" does not exist`) {
		t.Fatalf("Start with a missing bucket = %v", err)
	}
}

// TestMediaInAnotherDirectory: --media naming a directory other than the
// data directory keeps the media there; an upload is written in the data
// directory and moved there when complete.
func TestMediaInAnotherDirectory(t *testing.T) {
	t.Parallel()
	mediaDir := t.TempDir()
	srv := startServer(t, Config{Media: mediaDir})
	c := newClient(t, srv, devKey)
	data := bytes.Repeat([]byte("clip"), 100_000)
	id := c.uploadFile(data, 150_000)
	if got, err := os.ReadFile(filepath.Join(mediaDir, "uploads", id+".bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the upload in --media holds %d bytes (%v); want the %d sent", len(got), err, len(data))
	}
	if files := listFiles(t, filepath.Join(srv.dir, "uploads")); len(files) != 0 {
		t.Errorf("DATA/uploads keeps %v", files)
	}
}
