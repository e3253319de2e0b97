package upload

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/s3blob"
)

// twoNodes is two API nodes' Sessions over one store and one bucket.
func twoNodes(t *testing.T) (a, b *Sessions, m *memStore, bucket blob.Store) {
	t.Helper()
	bucket = testBucket(t)
	m = newMemStore()
	a = New(Config{Store: m, Files: testMedia(t, t.TempDir()), Media: bucket, MaxBytes: testLimit})
	b = New(Config{Store: m, Files: testMedia(t, t.TempDir()), Media: bucket, MaxBytes: testLimit})
	return a, b, m, bucket
}

// wantRefusal checks err is a refusal on Content-Range whose rule says to
// resume at byte at.
func wantRefusal(t *testing.T, what string, err error, at int64) {
	t.Helper()
	var re *RequestError
	if !errors.As(err, &re) || re.Field != "Content-Range" || !strings.Contains(re.Rule, fmt.Sprintf("resume at byte %d", at)) {
		t.Fatalf("%s = %v; want a refusal on Content-Range resuming at byte %d", what, err, at)
	}
}

// TestPartsAnyNode: the chunks of one upload alternate between two nodes,
// each answering from the shared record; a resent chunk and one after a
// hole are refused with where to resume, and the completed object holds
// the file.
func TestPartsAnyNode(t *testing.T) {
	t.Parallel()
	a, b, m, bucket := twoNodes(t)
	ctx := t.Context()
	up, ses := startedUpload(t, a)
	if st, err := a.Put(ctx, ses, put("bytes 0-9/30", "0123456789")); err != nil || st.Received != 10 {
		t.Fatalf("chunk 1 on A: %+v, %v", st, err)
	}
	if st, err := b.Put(ctx, ses, put("bytes */30", "")); err != nil || st.Received != 10 || st.Complete {
		t.Fatalf("status on B: %+v, %v; want 10 bytes", st, err)
	}
	if st, err := b.Put(ctx, ses, put("bytes 10-19/30", "abcdefghij")); err != nil || st.Received != 20 {
		t.Fatalf("chunk 2 on B: %+v, %v", st, err)
	}
	_, err := a.Put(ctx, ses, put("bytes 0-9/30", "0123456789"))
	wantRefusal(t, "chunk 1 again on A", err, 20)
	_, err = a.Put(ctx, ses, put("bytes 25-29/30", "VWXYZ"))
	wantRefusal(t, "a chunk after a hole on A", err, 20)
	if rec := m.record(t, up.ID); rec.Received != 20 {
		t.Fatalf("record after the refusals: %+v; want 20 bytes", rec)
	}
	st, err := a.Put(ctx, ses, put("bytes 20-29/30", "KLMNOPQRST"))
	if err != nil || !st.Complete || st.Received != 30 {
		t.Fatalf("last chunk on A: %+v, %v", st, err)
	}
	if got := readObject(t, bucket, up.Key); got != "0123456789abcdefghijKLMNOPQRST" {
		t.Fatalf("the object holds %q", got)
	}
	if st, err := b.Put(ctx, ses, put("bytes */30", "")); err != nil || !st.Complete {
		t.Errorf("status on B after completion: %+v, %v", st, err)
	}
	if parts := list(t, bucket, blob.UploadPartsPrefix(up.ID)); len(parts) != 0 {
		t.Errorf("parts stay: %+v", parts)
	}
}

// TestPartsDropAndResume: a PUT whose client goes away keeps what arrived
// (a part counted in the record), which the other node reports; a body
// longer than its Content-Range keeps nothing; a part held in several
// pieces (the checkpoint) joins the same.
func TestPartsDropAndResume(t *testing.T) {
	t.Parallel()
	a, b, m, bucket := twoNodes(t)
	a.checkpoint = 4 // a long body is stored in parts of 4 bytes
	ctx := t.Context()
	up, ses := startedUpload(t, a)
	if _, err := a.Put(ctx, ses, dropped("bytes 0-19/20", 20, "0123456789")); err == nil {
		t.Fatal("a dropped chunk succeeded")
	}
	if st, err := b.Put(ctx, ses, put("bytes */20", "")); err != nil || st.Received != 10 {
		t.Fatalf("status on B after the drop: %+v, %v; want the 10 bytes that arrived", st, err)
	}
	if parts := list(t, bucket, blob.UploadPartsPrefix(up.ID)); len(parts) != 3 {
		t.Errorf("parts after 10 bytes in pieces of 4: %+v", parts)
	}
	if _, err := a.Put(ctx, ses, streamed("bytes 10-14/20", "abcdefghij")); err == nil {
		t.Fatal("a chunk bringing more than its Content-Range succeeded")
	}
	if rec := m.record(t, up.ID); rec.Received != 10 {
		t.Fatalf("record after a too long chunk: %+v; want 10 bytes", rec)
	}
	if parts := list(t, bucket, blob.UploadPartsPrefix(up.ID)); len(parts) != 3 {
		t.Errorf("parts after a too long chunk: %+v; want its pieces gone", parts)
	}
	if st, err := b.Put(ctx, ses, put("bytes 10-19/20", "abcdefghij")); err != nil || !st.Complete {
		t.Fatalf("the rest on B: %+v, %v", st, err)
	}
	if got := readObject(t, bucket, up.Key); got != "0123456789abcdefghij" {
		t.Fatalf("the object holds %q", got)
	}
}

// blockedBody brings body only once release is closed, and says when its
// read began.
type blockedBody struct {
	r       io.Reader
	reading chan struct{}
	release chan struct{}
	once    bool
}

func (b *blockedBody) Read(p []byte) (int, error) {
	if !b.once {
		b.once = true
		close(b.reading)
		<-b.release
	}
	return b.r.Read(p)
}

// TestPartsRace: two nodes take the same chunk at once; the one that
// counts its bytes second is refused, and only the winner's part stays.
func TestPartsRace(t *testing.T) {
	t.Parallel()
	a, b, m, bucket := twoNodes(t)
	ctx := t.Context()
	up, ses := startedUpload(t, a)
	slow := &blockedBody{r: strings.NewReader("AAAAA"), reading: make(chan struct{}), release: make(chan struct{})}
	errs := make(chan error, 1)
	go func() {
		_, err := a.Put(ctx, ses, Request{ContentRange: "bytes 0-4/10", ContentLength: 5, Body: slow})
		errs <- err
	}()
	<-slow.reading // A has checked the chunk against the record: it starts at 0
	if st, err := b.Put(ctx, ses, put("bytes 0-4/10", "BBBBB")); err != nil || st.Received != 5 {
		t.Fatalf("the chunk on B: %+v, %v", st, err)
	}
	close(slow.release)
	wantRefusal(t, "the same chunk finished later on A", <-errs, 5)
	if rec := m.record(t, up.ID); rec.Received != 5 {
		t.Fatalf("record: %+v; want the chunk counted once", rec)
	}
	if parts := list(t, bucket, blob.UploadPartsPrefix(up.ID)); len(parts) != 1 {
		t.Fatalf("parts: %+v; want the winner's only", parts)
	}
	if st, err := a.Put(ctx, ses, put("bytes 5-9/10", "CCCCC")); err != nil || !st.Complete {
		t.Fatalf("last chunk: %+v, %v", st, err)
	}
	if got := readObject(t, bucket, up.Key); got != "BBBBBCCCCC" {
		t.Fatalf("the object holds %q; want B's chunk then the last", got)
	}
}

// TestPartsLost: when the parts do not hold what the record counts (lost,
// or an upload begun by a release that kept chunks on a node's disk), the
// chunk that would complete it is refused with where to resume, never
// completed with a hole.
func TestPartsLost(t *testing.T) {
	t.Parallel()
	a, b, m, bucket := twoNodes(t)
	ctx := t.Context()
	up, ses := startedUpload(t, a)
	if _, err := a.Put(ctx, ses, put("bytes 0-4/10", "01234")); err != nil {
		t.Fatal(err)
	}
	if _, err := bucket.DeletePrefix(ctx, blob.UploadPartsPrefix(up.ID)); err != nil {
		t.Fatal(err)
	}
	_, err := b.Put(ctx, ses, put("bytes 5-9/10", "56789"))
	wantRefusal(t, "the last chunk after its parts were lost", err, 0)
	if rec := m.record(t, up.ID); rec.Received != 0 || rec.Complete {
		t.Fatalf("record: %+v; want 0 bytes, incomplete", rec)
	}
	if st, err := b.Put(ctx, ses, put("", "0123456789")); err != nil || !st.Complete {
		t.Fatalf("the whole file again: %+v, %v", st, err)
	}
	if got := readObject(t, bucket, up.Key); got != "0123456789" {
		t.Fatalf("the object holds %q", got)
	}
}

// TestPartsWholeReplaces: a PUT of the whole file drops what an earlier
// attempt of the session left.
func TestPartsWholeReplaces(t *testing.T) {
	t.Parallel()
	a, b, _, bucket := twoNodes(t)
	ctx := t.Context()
	up, ses := startedUpload(t, a)
	if _, err := a.Put(ctx, ses, put("bytes 0-4/*", "xxxxx")); err != nil {
		t.Fatal(err)
	}
	if st, err := b.Put(ctx, ses, streamed("", "the whole file")); err != nil || !st.Complete || st.Received != 14 {
		t.Fatalf("whole file on B: %+v, %v", st, err)
	}
	if got := readObject(t, bucket, up.Key); got != "the whole file" {
		t.Fatalf("the object holds %q", got)
	}
}

// TestComposable: S3 joins sources of at least 5 MiB but the last; other
// parts are joined by reading them.
func TestComposable(t *testing.T) {
	t.Parallel()
	mib := int64(1 << 20)
	if !composable([]part{{"", 0, 5 * mib}, {"", 5 * mib, 10 * mib}, {"", 10 * mib, 10*mib + 1}}) {
		t.Error("parts of 5 MiB and a small last one are not composable")
	}
	if composable([]part{{"", 0, 5 * mib}, {"", 5 * mib, 6 * mib}, {"", 6 * mib, 11 * mib}}) {
		t.Error("a part of 1 MiB in the middle is composable")
	}
}

// TestPartsComposed: parts of at least 5 MiB are joined in the bucket
// (blob.Composer); the object is byte-identical to the file.
func TestPartsComposed(t *testing.T) {
	t.Parallel()
	bucket := &countingComposer{Store: testBucket(t)}
	m := newMemStore()
	s := New(Config{Store: m, Files: testMedia(t, t.TempDir()), Media: bucket})
	s.checkpoint = 5 << 20
	ctx := t.Context()
	file := make([]byte, 12<<20+123)
	_, _ = rand.Read(file)
	up, ses := startedUpload(t, s)
	total := len(file)
	for off := 0; off < total; off += 5 << 20 {
		end := min(off+5<<20, total)
		cr := fmt.Sprintf("bytes %d-%d/%d", off, end-1, total)
		if _, err := s.Put(ctx, ses, Request{ContentRange: cr, ContentLength: int64(end - off), Body: bytes.NewReader(file[off:end])}); err != nil {
			t.Fatalf("%s: %v", cr, err)
		}
	}
	if got := sha256.Sum256([]byte(readObject(t, bucket, up.Key))); got != sha256.Sum256(file) {
		t.Fatal("the joined object differs from the file")
	}
	if rec := m.record(t, up.ID); !rec.Complete {
		t.Fatalf("record %+v", rec)
	}
	if bucket.sources != 3 {
		t.Errorf("the bucket joined %d parts; want the 3 parts of 5 MiB, 5 MiB and 2 MiB", bucket.sources)
	}
}

// countingComposer counts the sources the bucket joins.
type countingComposer struct {
	*s3blob.Store
	sources int
}

func (c *countingComposer) Compose(ctx context.Context, dst string, srcs []string) error {
	c.sources += len(srcs)
	return c.Store.Compose(ctx, dst, srcs)
}

// TestPartsStartDropsEarlierBytes: a new session of an incomplete upload
// deletes what an earlier one left in the bucket, its parts and an object
// under the upload's key (a partial file `clipperd migrate` copied there),
// so the new session's file is never joined with them nor taken for them.
func TestPartsStartDropsEarlierBytes(t *testing.T) {
	t.Parallel()
	a, _, _, bucket := twoNodes(t)
	ctx := t.Context()
	up, ses := startedUpload(t, a)
	if _, err := a.Put(ctx, ses, put("bytes 0-4/10", "01234")); err != nil {
		t.Fatal(err)
	}
	if err := blob.Write(ctx, bucket, up.Key, strings.NewReader("0123456789")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Start(ctx, up.ID); err != nil {
		t.Fatal(err)
	}
	if left := list(t, bucket, blob.UploadsPrefix); len(left) != 0 {
		t.Fatalf("after a new start the bucket keeps %+v", left)
	}
}
