package s3blob_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/blobtest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/miniotest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/s3blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency/dependencytest"
)

// TestRetryingBucket: a bucket behind blob.WithRetry passes the one suite
// (the wrapper keeps every rule), rides out the server stopped and started
// again inside a get and a put, and takes a refusal or a missing object as
// final at once.
func TestRetryingBucket(t *testing.T) {
	t.Parallel()
	srv := miniotest.Start(t)
	t.Run("Suite", func(t *testing.T) {
		blobtest.Run(t, func(t *testing.T) blob.Store {
			return blob.WithRetry(newStore(t, srv, "p"), &dependency.Retry{Name: dependency.Bucket, Window: time.Minute})
		})
	})
	t.Run("AwayAndBack", func(t *testing.T) { awayAndBack(t, srv) })
	t.Run("AnswersAreFinal", func(t *testing.T) { answersAreFinal(t, srv) })
}

// awayAndBack stops the server under a get and then under a put of a
// file: each waits on the retry curve while the bucket is down (Health
// says so), and succeeds once the server is back, the bucket then up.
func awayAndBack(t *testing.T, srv *miniotest.Server) {
	ctx := t.Context()
	inner := newStore(t, srv, "")
	clock := dependencytest.NewClock()
	health := dependency.NewHealth(nil)
	health.Watch(dependency.Bucket, func(context.Context) error { return nil })
	s := blob.WithRetry(inner, clock.Retry(dependency.Bucket, time.Minute, health))
	if _, ok := s.(blob.Composer); !ok {
		t.Error("the retrying bucket lost the bucket's Compose")
	}
	want := bytes.Repeat([]byte("clip "), 1000)
	if err := blob.Write(ctx, inner, "media/p1/c01.mp4", bytes.NewReader(want)); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "render.mp4")
	if err := os.WriteFile(file, want, 0o600); err != nil {
		t.Fatal(err)
	}

	away := func(name string, op func() error) {
		t.Helper()
		srv.Stop()
		done := make(chan error, 1)
		go func() { done <- op() }()
		clock.Await(t) // the first attempt was refused
		if health.Up(dependency.Bucket) || health.Ready() == nil {
			t.Errorf("%s: the bucket is up while it is away", name)
		}
		clock.End(t)
		clock.Await(t) // and the second
		srv.Restart(t)
		clock.End(t)
		if err := <-done; err != nil {
			t.Fatalf("%s after the bucket came back: %v", name, err)
		}
		if !health.Up(dependency.Bucket) || health.Ready() != nil {
			t.Errorf("%s: the bucket is not up again: %v", name, health.Ready())
		}
	}
	away("get", func() error {
		got, err := readAll(ctx, s, "media/p1/c01.mp4")
		if err == nil && !bytes.Equal(got, want) {
			err = errors.New("the object read is not the one written")
		}
		return err
	})
	away("put", func() error {
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		defer f.Close()
		return blob.Write(ctx, s, "media/p1/c02.mp4", f)
	})
	got, err := readAll(ctx, inner, "media/p1/c02.mp4")
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("the put object: %d bytes, %v; want the file's %d", len(got), err, len(want))
	}
}

func readAll(ctx context.Context, s blob.Store, key string) ([]byte, error) {
	r, err := s.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// answersAreFinal: a missing object and a write refused to read-only
// credentials (AccessDenied) fail at once, without a retry.
func answersAreFinal(t *testing.T, srv *miniotest.Server) {
	ctx := t.Context()
	inner := newStore(t, srv, "")
	clock := dependencytest.NewClock()
	s := blob.WithRetry(inner, clock.Retry(dependency.Bucket, time.Minute, nil))
	if _, err := s.Stat(ctx, "media/none.mp4"); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Stat of a missing object = %v, want ErrNotFound", err)
	}
	access, secret, token := srv.ReadOnly(t, inner.Config().Bucket)
	readOnly, err := s3blob.New(ctx, s3blob.Config{Bucket: inner.Config().Bucket, Endpoint: srv.Endpoint, Region: "us-east-1",
		AccessKey: access, SecretKey: secret, SessionToken: token})
	if err != nil {
		t.Fatal(err)
	}
	s = blob.WithRetry(readOnly, clock.Retry(dependency.Bucket, time.Minute, nil))
	err = blob.Write(ctx, s, "media/p1/c01.mp4", bytes.NewReader([]byte("x")))
	var answer minio.ErrorResponse
	if !errors.As(err, &answer) || answer.Code != "AccessDenied" {
		t.Errorf("a write with read-only credentials = %v, want AccessDenied", err)
	}
	if clock.Waited() != 0 {
		t.Errorf("%d retries of final answers, want none", clock.Waited())
	}
}

// TestTransient: the bucket's answers that ask to try again (a 5xx,
// SlowDown) and no answer are transient; a 4xx is final.
func TestTransient(t *testing.T) {
	t.Parallel()
	var s s3blob.Store
	for _, c := range []struct {
		err  error
		want bool
	}{
		{minio.ErrorResponse{Code: "SlowDown", StatusCode: http.StatusServiceUnavailable}, true},
		{minio.ErrorResponse{Code: "InternalError", StatusCode: http.StatusInternalServerError}, true},
		{minio.ErrorResponse{Code: "ServiceUnavailable", StatusCode: http.StatusServiceUnavailable}, true},
		{minio.ErrorResponse{StatusCode: http.StatusBadGateway}, true},
		{minio.ErrorResponse{Code: "AccessDenied", StatusCode: http.StatusForbidden}, false},
		{minio.ErrorResponse{Code: "NoSuchKey", StatusCode: http.StatusNotFound}, false},
		{minio.ErrorResponse{Code: "NoSuchBucket", StatusCode: http.StatusNotFound}, false},
		{errors.New("blob: write aborted"), false},
	} {
		if got := s.Transient(c.err); got != c.want {
			t.Errorf("Transient(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
