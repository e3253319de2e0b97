package s3blob_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/blobtest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/miniotest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/s3blob"
	"github.com/minio/minio-go/v7"
)

// newStore opens a fresh bucket of srv, under prefix.
func newStore(t testing.TB, srv *miniotest.Server, prefix string) *s3blob.Store {
	t.Helper()
	s, err := s3blob.New(t.Context(), s3blob.Config{
		Bucket: srv.NewBucket(t), Prefix: prefix, Endpoint: srv.Endpoint, Region: "us-east-1",
		AccessKey: srv.AccessKey, SecretKey: srv.SecretKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestS3(t *testing.T) {
	t.Parallel()
	srv := miniotest.Start(t)
	t.Run("BucketRoot", func(t *testing.T) {
		blobtest.Run(t, func(t *testing.T) blob.Store { return newStore(t, srv, "") })
	})
	t.Run("UnderPrefix", func(t *testing.T) {
		blobtest.Run(t, func(t *testing.T) blob.Store { return newStore(t, srv, "clipperd/prod") })
	})
	t.Run("PrefixKeepsOut", func(t *testing.T) { prefixKeepsOut(t, srv) })
	t.Run("StreamedMultipart", func(t *testing.T) { streamedMultipart(t, srv) })
	t.Run("ReadSeesOneVersion", func(t *testing.T) { readSeesOneVersion(t, srv) })
}

// TestS3EnvironmentCredentials is apart from TestS3 because it sets the
// process's environment, which a parallel test must not.
func TestS3EnvironmentCredentials(t *testing.T) {
	environmentCredentials(t, miniotest.Start(t))
}

// prefixKeepsOut: a store under a prefix neither lists nor deletes the
// objects beside it, and names its objects under the prefix.
func prefixKeepsOut(t *testing.T, srv *miniotest.Server) {
	ctx := t.Context()
	s := newStore(t, srv, "a/b")
	bucket := s.Config().Bucket
	if _, err := srv.Client.PutObject(ctx, bucket, "media/p1/other.mp4", strings.NewReader("beside"), 6, minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := blob.Write(ctx, s, "media/p1/c01.mp4", strings.NewReader("mine")); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Client.StatObject(ctx, bucket, "a/b/media/p1/c01.mp4", minio.StatObjectOptions{}); err != nil {
		t.Fatalf("the object is not under the prefix: %v", err)
	}
	if n, err := s.DeletePrefix(ctx, "media/p1/"); err != nil || n != 4 {
		t.Fatalf("DeletePrefix = %d, %v; want 4 bytes", n, err)
	}
	if _, err := srv.Client.StatObject(ctx, bucket, "media/p1/other.mp4", minio.StatObjectOptions{}); err != nil {
		t.Fatalf("DeletePrefix under a prefix removed an object beside it: %v", err)
	}
}

// streamedMultipart writes more than one part through Create, so the
// streamed multipart upload (not the one PUT of a small object) is used:
// nothing is visible before Commit, all of it after, and an Abort of a
// second one keeps the first whole.
func streamedMultipart(t *testing.T, srv *miniotest.Server) {
	ctx := t.Context()
	s := newStore(t, srv, "")
	body := bytes.Repeat([]byte("0123456789abcdef"), (40<<20)/16) // 40 MiB: three parts
	w, err := s.Create(ctx, "media/p1/source.mp4")
	if err != nil {
		t.Fatal(err)
	}
	for chunk := range slices(body, 1<<20) {
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Stat(ctx, "media/p1/source.mp4"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Stat of a streamed upload before Commit = %v; want ErrNotFound", err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	r, err := s.Open(ctx, "media/p1/source.mp4")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("read back %d bytes (%v); want the %d written", len(got), err, len(body))
	}

	w, err = s.Create(ctx, "media/p1/source.mp4")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(bytes.Repeat([]byte("x"), 20<<20)); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if info, err := s.Stat(ctx, "media/p1/source.mp4"); err != nil || info.Size != int64(len(body)) {
		t.Fatalf("after an aborted streamed upload Stat = %+v, %v; want the earlier %d bytes", info, err, len(body))
	}
	for u := range srv.Client.ListIncompleteUploads(ctx, s.Config().Bucket, "media/", true) {
		t.Errorf("an aborted upload is left in the bucket: %+v", u)
	}
}

// slices cuts b into pieces of n bytes.
func slices(b []byte, n int) func(func([]byte) bool) {
	return func(yield func([]byte) bool) {
		for len(b) > 0 {
			k := min(n, len(b))
			if !yield(b[:k]) {
				return
			}
			b = b[k:]
		}
	}
}

// readSeesOneVersion: a reader opened before the object was replaced fails
// instead of mixing the two versions.
func readSeesOneVersion(t *testing.T, srv *miniotest.Server) {
	ctx := t.Context()
	s := newStore(t, srv, "")
	if err := blob.Write(ctx, s, "media/p1/c01.mp4", strings.NewReader("first version")); err != nil {
		t.Fatal(err)
	}
	r, err := s.Open(ctx, "media/p1/c01.mp4")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := blob.Write(ctx, s, "media/p1/c01.mp4", strings.NewReader("SECOND VERSION")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 5)
	if _, err := r.ReadAt(b, 6); err == nil || !strings.Contains(err.Error(), "replaced while it was read") {
		t.Fatalf("ReadAt after a replace = %q, %v; want an error saying the object was replaced", b, err)
	}
}

// environmentCredentials: with no credentials in the Config, the AWS
// environment variables are used, and bad ones fail New with a message
// naming them.
func environmentCredentials(t *testing.T, srv *miniotest.Server) {
	bucket := srv.NewBucket(t)
	cfg, err := s3blob.ParseURL(srv.URL(bucket, "x"))
	if err != nil {
		t.Fatal(err)
	}
	srv.Env(t)
	s, err := s3blob.New(t.Context(), cfg)
	if err != nil {
		t.Fatalf("New with the AWS environment variables: %v", err)
	}
	if err := blob.Write(t.Context(), s, "uploads/up1.bin", strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong-secret")
	if _, err := s3blob.New(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "AWS_SECRET_ACCESS_KEY") {
		t.Fatalf("New with a wrong secret = %v; want an error naming the credentials' variables", err)
	}
	cfg.Bucket = "no-such-bucket"
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey)
	if _, err := s3blob.New(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), `bucket "no-such-bucket" does not exist`) {
		t.Fatalf("New of a missing bucket = %v", err)
	}
}

// TestPresignRange: a presigned URL serves the object to anyone holding
// it, with Range (206 with those bytes and the object's content type); a
// missing key is a 404 and an altered URL a 403.
func TestPresignRange(t *testing.T) {
	t.Parallel()
	srv := miniotest.Start(t)
	s := newStore(t, srv, "p")
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "c01.mp4")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := blob.PutFile(ctx, s, "media/p1/c01.mp4", path); err != nil {
		t.Fatal(err)
	}
	addr, err := s.Presign(ctx, "media/p1/c01.mp4", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	resp := get(t, ctx, addr, "bytes=2-4")
	if resp.code != http.StatusPartialContent || resp.body != "234" || resp.contentType != "video/mp4" {
		t.Fatalf("ranged GET of the presigned URL = %d %q %q; want 206 \"234\" video/mp4", resp.code, resp.body, resp.contentType)
	}
	gone, err := s.Presign(ctx, "media/p1/none.mp4", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if resp := get(t, ctx, gone, ""); resp.code != http.StatusNotFound {
		t.Fatalf("GET of a presigned URL of a missing key = %d; want 404", resp.code)
	}
	if resp := get(t, ctx, strings.Replace(addr, "c01", "c02", 1), ""); resp.code != http.StatusForbidden {
		t.Fatalf("GET of an altered presigned URL = %d; want 403", resp.code)
	}
}

type answer struct {
	code              int
	body, contentType string
}

func get(t *testing.T, ctx context.Context, addr, rng string) answer {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rng != "" {
		req.Header.Set("Range", rng)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, string(b), resp.Header.Get("Content-Type")}
}
