package upload

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/miniotest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/s3blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// TestUploadLandsInBucket: on a bucket each chunk is stored as a part
// under the upload's prefix and nothing is written on the local disk; the
// PUT that completes the upload joins the parts into the upload's object,
// deletes them, and only then is the upload complete.
func TestUploadLandsInBucket(t *testing.T) {
	t.Parallel()
	bucket := testBucket(t)
	m := newMemStore()
	local := t.TempDir()
	s := New(Config{Store: m, Files: testMedia(t, local), Media: bucket})
	ctx := t.Context()
	up, ses := startedUpload(t, s)
	if st, err := s.Put(ctx, ses, put("bytes 0-4/10", "01234")); err != nil || st.Complete || st.Received != 5 {
		t.Fatalf("first chunk: %+v, %v", st, err)
	}
	if _, err := bucket.Stat(ctx, up.Key); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("an incomplete upload is in the bucket: %v", err)
	}
	if parts := list(t, bucket, blob.UploadPartsPrefix(up.ID)); len(parts) != 1 || parts[0].Size != 5 {
		t.Fatalf("parts after the first chunk: %+v; want one of 5 bytes", parts)
	}
	if st, err := s.Put(ctx, ses, put("bytes 5-9/10", "56789")); err != nil || !st.Complete {
		t.Fatalf("last chunk: %+v, %v", st, err)
	}
	if got := readObject(t, bucket, up.Key); got != "0123456789" {
		t.Fatalf("the bucket holds %q", got)
	}
	if parts := list(t, bucket, blob.UploadPartsPrefix(up.ID)); len(parts) != 0 {
		t.Errorf("parts stay after completion: %+v", parts)
	}
	if entries, err := os.ReadDir(local); err != nil || len(entries) != 0 {
		t.Errorf("the local directory holds %v (%v); want nothing", entries, err)
	}
	if rec := m.record(t, up.ID); !rec.Complete || rec.Received != 10 {
		t.Errorf("record after landing: %+v", rec)
	}
}

func testBucket(t *testing.T) *s3blob.Store {
	t.Helper()
	srv := miniotest.Start(t)
	bucket, err := s3blob.New(t.Context(), s3blob.Config{Bucket: srv.NewBucket(t), Prefix: "clipperd",
		Endpoint: srv.Endpoint, AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	return bucket
}

// startedUpload creates an upload and opens its session.
func startedUpload(t *testing.T, s *Sessions) (*store.Upload, string) {
	t.Helper()
	up, err := s.Create(t.Context(), "org", "user")
	if err != nil {
		t.Fatal(err)
	}
	ses, err := s.Start(t.Context(), up.ID)
	if err != nil {
		t.Fatal(err)
	}
	return up, ses
}

func list(t *testing.T, s blob.Store, prefix string) []blob.Info {
	t.Helper()
	infos, err := s.List(t.Context(), prefix)
	if err != nil {
		t.Fatal(err)
	}
	return infos
}

// TestLandingFailureThenQuery: when the complete upload cannot be stored,
// the PUT fails and the upload stays incomplete with its bytes held; a
// status query once the store works lands it and answers complete.
func TestLandingFailureThenQuery(t *testing.T) {
	t.Parallel()
	blocked := filepath.Join(t.TempDir(), "media")
	if err := os.WriteFile(blocked, []byte("a file where the directory goes"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newMemStore()
	s := New(Config{Store: m, Files: testMedia(t, t.TempDir()), Media: testMedia(t, blocked)})
	ctx := t.Context()
	up := withUpload(t, s, m, held{total: -1})
	ses := up.SessionID
	if _, err := s.Put(ctx, ses, put("", "whole file")); err == nil {
		t.Fatal("a PUT whose upload could not be stored succeeded")
	}
	if rec := m.record(t, up.ID); rec.Complete || rec.Received != 10 {
		t.Fatalf("record after a failed landing: %+v; want 10 bytes held, not complete", rec)
	}
	if err := os.Remove(blocked); err != nil {
		t.Fatal(err)
	}
	st, err := s.Put(ctx, ses, Request{ContentRange: "bytes */10", ContentLength: 0})
	if err != nil || !st.Complete || st.Received != 10 {
		t.Fatalf("status query after the store works again = %+v, %v; want complete", st, err)
	}
	if b, err := os.ReadFile(filepath.Join(blocked, "uploads", up.ID+".bin")); err != nil || string(b) != "whole file" {
		t.Fatalf("the landed upload holds %q, %v", b, err)
	}
}

func readObject(t *testing.T, s blob.Store, key string) string {
	t.Helper()
	r, err := s.Open(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBytesMissingFromThisServer: when the file holds fewer bytes than the
// record (the earlier chunks went to another server, or the file was
// lost), the next chunk is refused with where to resume, and a status
// query reports what the file really holds, instead of writing after a hole.
func TestBytesMissingFromThisServer(t *testing.T) {
	t.Parallel()
	s, m := newTestSessions(t)
	ctx := t.Context()
	up := withUpload(t, s, m, held{total: -1})
	ses := up.SessionID
	if _, err := s.Put(ctx, ses, put("bytes 0-4/10", "01234")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(localFile(t, s, up)); err != nil {
		t.Fatal(err)
	}
	_, err := s.Put(ctx, ses, put("bytes 5-9/10", "56789"))
	var re *RequestError
	if !errors.As(err, &re) || re.Field != "Content-Range" || !strings.Contains(err.Error(), "resume at byte 0") {
		t.Fatalf("a chunk after bytes this server lacks = %v; want a Content-Range refusal resuming at byte 0", err)
	}
	if rec := m.record(t, up.ID); rec.Received != 0 || rec.Complete {
		t.Errorf("record = %+v; want 0 bytes held", rec)
	}
	st, err := s.Put(ctx, ses, Request{ContentRange: "bytes */10", ContentLength: 0})
	if err != nil || st.Received != 0 || st.Complete {
		t.Errorf("status query = %+v, %v; want 0 bytes", st, err)
	}
}
