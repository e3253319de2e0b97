package pipeline

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/miniotest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/s3blob"
)

// TestImportFromLinkIntoBucket: with the media in a bucket, a linked video
// is downloaded into the run's temporary directory, stored in the bucket,
// and probed from that download (not read back); a second run, with the
// source in the bucket and the link gone, reads it back into the run's
// directory.
func TestImportFromLinkIntoBucket(t *testing.T) {
	t.Parallel()
	src := testVideo(t)
	srv := serveFile(t, src)
	minioSrv := miniotest.Start(t)
	bucket, err := s3blob.New(t.Context(), s3blob.Config{Bucket: minioSrv.NewBucket(t), Endpoint: minioSrv.Endpoint,
		AccessKey: minioSrv.AccessKey, SecretKey: minioSrv.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.cfg.Media = bucket
	e.cfg.AllowPrivateImports = true
	r, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	j := e.importJob(srv.URL+"/talk.mp4", nil)
	if err := r.importStage(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(src)
	obj, err := bucket.Open(t.Context(), "media/"+j.p.ID+"/"+sourceName)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(obj)
	_ = obj.Close()
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the bucket's source holds %d bytes (%v); want the %d served", len(got), err, len(want))
	}
	if !strings.HasPrefix(j.source, j.tmp+string(filepath.Separator)) || filepath.Base(j.source) != "download.part" {
		t.Errorf("the source is read from %s; want the download kept in the run's directory %s", j.source, j.tmp)
	}
	if j.probe.DurationSec < 39 || j.probe.DurationSec > 41 {
		t.Errorf("probe of the kept download: %+v", j.probe)
	}

	srv.Close()
	j.source = ""
	if err := r.importStage(context.Background(), j); err != nil {
		t.Fatalf("re-import with the source in the bucket: %v", err)
	}
	if b, err := os.ReadFile(j.source); err != nil || !bytes.Equal(b, want) || !strings.HasPrefix(j.source, j.tmp) {
		t.Errorf("the source read back from the bucket into %s: %d bytes, %v", j.source, len(b), err)
	}
}
