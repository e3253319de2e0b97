package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/miniotest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/minio/minio-go/v7"
)

// TestUploadAcrossAPINodes: two API-only nodes (serve --workers 0) on one
// PostgreSQL and one bucket take the chunks of one upload in turn, with no
// sticky routing: each answers a status query with what the other stored,
// a chunk sent again and one after a hole are refused with where to
// resume, and the completed object in the bucket is the file, which a
// worker imports. An abandoned upload's parts are deleted by the janitor
// of an API-only node, and no node keeps upload bytes on its disk.
func TestUploadAcrossAPINodes(t *testing.T) {
	video := sourceVideo(t)
	minioSrv := miniotest.Start(t)
	bucket := minioSrv.NewBucket(t)
	minioSrv.Env(t)
	_, key := masterkey.Generate()
	shared := Config{Database: storetestURL(t), Media: minioSrv.URL(bucket, "clipperd"), MasterKey: key}
	node := func(cfg Config) Config {
		cfg.Database, cfg.Media, cfg.MasterKey = shared.Database, shared.Media, shared.MasterKey
		cfg.APIOnly = true
		return cfg
	}
	a := startServer(t, node(Config{}))
	b := startServer(t, node(Config{}))
	ca, cb := newClient(t, a, devKey), newClient(t, b, devKey)
	ctx := t.Context()
	objects := func(prefix string) []string {
		t.Helper()
		var keys []string
		for o := range minioSrv.Client.ListObjects(ctx, bucket, minio.ListObjectsOptions{Prefix: "clipperd/" + prefix, Recursive: true}) {
			if o.Err != nil {
				t.Fatal(o.Err)
			}
			keys = append(keys, o.Key)
		}
		return keys
	}
	object := func(key string) []byte {
		t.Helper()
		o, err := minioSrv.Client.GetObject(ctx, bucket, "clipperd/"+key, minio.GetObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		data, err := io.ReadAll(o)
		if err != nil {
			t.Fatalf("object %s: %v", key, err)
		}
		return data
	}
	// on is a session address on node n: the path is the same on every node.
	on := func(n *Server, session string) string {
		return n.URL() + session[strings.Index(session, "/storage/"):]
	}
	put := func(c *apiClient, session string, off, end int) (*http.Response, []byte) {
		t.Helper()
		return c.do(http.MethodPut, session, video[off:end+1], "Content-Range", fmt.Sprintf("bytes %d-%d/%d", off, end, len(video)))
	}

	link := ca.uploadLink()
	session := ca.startSession(link.URL)
	total := len(video)
	chunk := total/4 + 1
	for i, off := 0, 0; off < total; i, off = i+1, off+chunk {
		end := min(off+chunk, total) - 1
		c, n, other, otherN := ca, a, cb, b
		if i%2 == 1 {
			c, n, other, otherN = cb, b, ca, a
		}
		resp, body := put(c, on(n, session), off, end)
		if end == total-1 {
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("last chunk %d-%d: %d %s; want 200", off, end, resp.StatusCode, body)
			}
			break
		}
		if resp.StatusCode != http.StatusPermanentRedirect {
			t.Fatalf("chunk %d-%d on node %d: %d %s; want 308", off, end, i%2, resp.StatusCode, body)
		}
		// The other node answers a status query with what this one stored.
		resp, body = other.do(http.MethodPut, on(otherN, session), nil, "Content-Range", fmt.Sprintf("bytes */%d", total))
		if want := fmt.Sprintf("bytes=0-%d", end); resp.StatusCode != http.StatusPermanentRedirect || resp.Header.Get("Range") != want {
			t.Fatalf("status on the other node after %d-%d: %d Range %q %s; want 308 %s", off, end, resp.StatusCode, resp.Header.Get("Range"), body, want)
		}
		if i == 1 {
			// A resend of the first chunk, and a chunk after a hole, on the other node.
			for _, bad := range [][2]int{{0, chunk - 1}, {end + 2, min(end+chunk, total-1)}} {
				resp, body := put(other, on(otherN, session), bad[0], bad[1])
				if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "Content-Range") ||
					!strings.Contains(string(body), fmt.Sprintf("resume at byte %d", end+1)) {
					t.Fatalf("chunk %d-%d after %d bytes: %d %s; want 400 naming Content-Range, resume at byte %d",
						bad[0], bad[1], end+1, resp.StatusCode, body, end+1)
				}
			}
		}
	}
	if got := object(blob.UploadKey(link.UploadID)); sha256.Sum256(got) != sha256.Sum256(video) {
		t.Fatalf("the bucket's upload (%d bytes) differs from the %d-byte file", len(got), total)
	}
	if parts := objects(blob.UploadPartsPrefix(link.UploadID)); len(parts) != 0 {
		t.Errorf("parts stay after completion: %v", parts)
	}

	// A worker imports the upload stored through both nodes.
	worker, err := StartWorker(ctx, Config{DataDir: t.TempDir(), Database: shared.Database, Media: shared.Media,
		MasterKey: key, PublicURL: a.URL(), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = worker.Close() })
	p := cb.mustCreate(map[string]any{"videoUrl": link.UploadID,
		"curationPref": map[string]any{"range": map[string]any{"startSec": 0, "endSec": 12}, "clipDurations": [][]float64{{4, 10}}}})
	source := blob.MediaKey(p.ID, "source.mp4")
	deadline := time.Now().Add(pipelineTimeout)
	for !slices.Contains(objects(source), "clipperd/"+source) {
		if time.Now().After(deadline) {
			t.Fatalf("project %s did not import its upload: stage %s", p.ID, ca.project(p.ID).Stage)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := object(source); !bytes.Equal(got, video) {
		t.Errorf("the imported source holds %d bytes; want the upload's %d", len(got), total)
	}
	if st := ca.project(p.ID).Stage; st == apitypes.StageQueued || st == apitypes.StagePending || st == apitypes.StageStalled {
		t.Errorf("project stage %s after its import", st)
	}

	// An upload abandoned after a chunk; an API-only node whose clock is
	// past its expiry sweeps it.
	abandoned := ca.uploadLink()
	put(cb, on(b, cb.startSession(abandoned.URL)), 0, chunk-1)
	if parts := objects(blob.UploadPartsPrefix(abandoned.UploadID)); len(parts) == 0 {
		t.Fatal("the abandoned upload's chunk is not in the bucket")
	}
	later := func() time.Time { return time.Now().Add(8 * 24 * time.Hour) }
	startServer(t, node(Config{Now: later, JanitorPeriod: 50 * time.Millisecond}))
	deadline = time.Now().Add(publishWait)
	for len(objects(blob.UploadPartsPrefix(abandoned.UploadID))) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the abandoned upload's parts stay: %v", objects(blob.UploadPartsPrefix(abandoned.UploadID)))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := a.store.GetUpload(context.WithoutCancel(ctx), abandoned.UploadID); err == nil {
		t.Error("the abandoned upload's record stays")
	}
	if _, err := a.store.GetUpload(ctx, link.UploadID); err != nil {
		t.Errorf("the upload a project uses: %v", err)
	}
	for _, n := range []*Server{a, b} {
		dir := filepath.Join(n.dir, "uploads")
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			continue // never made
		}
		if files := listFiles(t, dir); len(files) != 0 {
			t.Errorf("node %s keeps upload files %v", n.URL(), files)
		}
	}
}
