// Package blobtest is the one test suite every blob.Store backend passes
// (as litestream's replica clients and River's drivers share theirs): a
// backend's test calls Run with a function that makes an empty store.
package blobtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
)

// Run runs the suite; newStore makes an empty store for one subtest.
func Run(t *testing.T, newStore func(t *testing.T) blob.Store) {
	t.Helper()
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, s blob.Store)
	}{
		{"WriteThenRead", writeThenRead},
		{"RangedReads", rangedReads},
		{"NothingVisibleBeforeCommit", nothingBeforeCommit},
		{"AbortKeepsEarlierObject", abortKeepsEarlier},
		{"CommitReplaces", commitReplaces},
		{"ConcurrentWritersLeaveOneWhole", concurrentWriters},
		{"Missing", missing},
		{"InvalidKeys", invalidKeys},
		{"Copy", copyObject},
		{"CopyAddsBytesOnlyWhenItDoesNotShare", copyAddsBytes},
		{"Delete", deleteObject},
		{"ListAndDeletePrefix", listAndDeletePrefix},
		{"PutFile", putFile},
		{"LocalFile", localFile},
		{"StoreFile", storeFile},
		{"Presign", presign},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

// Put writes body as key, failing t if it cannot.
func Put(t *testing.T, s blob.Store, key, body string) {
	t.Helper()
	if err := blob.Write(t.Context(), s, key, strings.NewReader(body)); err != nil {
		t.Fatalf("write %s: %v", key, err)
	}
}

// Read is what key holds, failing t if it cannot be read.
func Read(t *testing.T, s blob.Store, key string) string {
	t.Helper()
	r, err := s.Open(t.Context(), key)
	if err != nil {
		t.Fatalf("open %s: %v", key, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read %s: %v", key, err)
	}
	return string(b)
}

func writeThenRead(t *testing.T, s blob.Store) {
	ctx := t.Context()
	Put(t, s, "media/p1/c01.mp4", "export bytes")
	if got := Read(t, s, "media/p1/c01.mp4"); got != "export bytes" {
		t.Fatalf("read back %q", got)
	}
	info, err := s.Stat(ctx, "media/p1/c01.mp4")
	if err != nil || info.Size != int64(len("export bytes")) || info.Key != "media/p1/c01.mp4" {
		t.Fatalf("Stat = %+v, %v; want the key and size %d", info, err, len("export bytes"))
	}
	if since := time.Since(info.ModTime); since < -time.Minute || since > time.Hour {
		t.Errorf("ModTime %v is not about now", info.ModTime)
	}
	r, err := s.Open(ctx, "media/p1/c01.mp4")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Info().Size != info.Size {
		t.Errorf("Reader.Info().Size = %d, Stat says %d", r.Info().Size, info.Size)
	}
}

func rangedReads(t *testing.T, s blob.Store) {
	body := strings.Repeat("0123456789", 1000)
	Put(t, s, "uploads/up1.bin", body)
	r, err := s.Open(t.Context(), "uploads/up1.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if end, err := r.Seek(0, io.SeekEnd); err != nil || end != int64(len(body)) {
		t.Fatalf("Seek to end = %d, %v; want %d", end, err, len(body))
	}
	if _, err := r.Seek(4995, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 10)
	if _, err := io.ReadFull(r, b); err != nil || string(b) != "5678901234" {
		t.Fatalf("read after Seek(4995) = %q, %v", b, err)
	}
	if n, err := r.ReadAt(b[:4], 9998); n != 2 || string(b[:2]) != "89" || !errors.Is(err, io.EOF) {
		t.Fatalf("ReadAt past the end = %d %q %v; want 2 \"89\" EOF", n, b[:2], err)
	}
	if n, err := r.ReadAt(b[:3], 12); n != 3 || err != nil || string(b[:3]) != "234" {
		t.Fatalf("ReadAt(12) = %d %q %v", n, b[:3], err)
	}
}

func nothingBeforeCommit(t *testing.T, s blob.Store) {
	ctx := t.Context()
	w, err := s.Create(ctx, "media/p1/c01.mp4")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("half")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Stat(ctx, "media/p1/c01.mp4"); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Stat before Commit = %v; want ErrNotFound", err)
	}
	if list, err := s.List(ctx, "media/p1/"); err != nil || len(list) != 0 {
		t.Errorf("List before Commit = %v, %v; want nothing", list, err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if list, err := s.List(ctx, "media/p1/"); err != nil || len(list) != 0 {
		t.Errorf("List after Abort = %v, %v; want nothing", list, err)
	}
}

func abortKeepsEarlier(t *testing.T, s blob.Store) {
	Put(t, s, "media/p1/c01.srt", "old")
	w, err := s.Create(t.Context(), "media/p1/c01.srt")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte("new and longer"))
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Errorf("a second Abort: %v", err)
	}
	if got := Read(t, s, "media/p1/c01.srt"); got != "old" {
		t.Fatalf("after Abort the object holds %q; want the earlier \"old\"", got)
	}
}

func commitReplaces(t *testing.T, s blob.Store) {
	Put(t, s, "media/p1/c01.srt", "a much longer first version")
	Put(t, s, "media/p1/c01.srt", "second")
	if got := Read(t, s, "media/p1/c01.srt"); got != "second" {
		t.Fatalf("after two commits the object holds %q", got)
	}
}

func concurrentWriters(t *testing.T, s blob.Store) {
	bodies := []string{strings.Repeat("a", 100_000), strings.Repeat("b", 50_000), strings.Repeat("c", 70_000)}
	var wg sync.WaitGroup
	for _, b := range bodies {
		wg.Go(func() {
			if err := blob.Write(t.Context(), s, "media/p1/c01.mp4", strings.NewReader(b)); err != nil {
				t.Errorf("concurrent write: %v", err)
			}
		})
	}
	wg.Wait()
	if got := Read(t, s, "media/p1/c01.mp4"); !slices.Contains(bodies, got) {
		t.Fatalf("concurrent writers left %d bytes that are none of theirs whole", len(got))
	}
}

func missing(t *testing.T, s blob.Store) {
	ctx := t.Context()
	if _, err := s.Open(ctx, "media/p1/none.mp4"); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Open of a missing key = %v; want ErrNotFound", err)
	}
	if _, err := s.Stat(ctx, "media/p1/none.mp4"); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Stat of a missing key = %v; want ErrNotFound", err)
	}
	Put(t, s, "media/p1/c01.mp4", "x")
	if _, err := s.Stat(ctx, "media/p1"); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Stat of a prefix without its slash = %v; want ErrNotFound (it is no object)", err)
	}
	if _, err := s.Stat(ctx, "media/p1/c01.mp4/x"); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Stat below an object = %v; want ErrNotFound", err)
	}
	if list, err := s.List(ctx, "media/nothing/"); err != nil || len(list) != 0 {
		t.Errorf("List of an empty prefix = %v, %v; want nothing", list, err)
	}
	if n, err := s.DeletePrefix(ctx, "media/nothing/"); err != nil || n != 0 {
		t.Errorf("DeletePrefix of an empty prefix = %d, %v", n, err)
	}
}

func invalidKeys(t *testing.T, s blob.Store) {
	ctx := t.Context()
	for _, key := range []string{"", "/abs/path", "media/../../etc/passwd", "media//x", "media/./x", "media/p1/", `media\p1`, "media/.hidden", "a\x00b"} {
		if _, err := s.Open(ctx, key); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("Open(%q) = %v; want ErrInvalidKey", key, err)
		}
		if _, err := s.Create(ctx, key); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("Create(%q) = %v; want ErrInvalidKey", key, err)
		}
		if err := s.Delete(ctx, key); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("Delete(%q) = %v; want ErrInvalidKey", key, err)
		}
	}
	for _, prefix := range []string{"", "/", "media", "../", "media//"} {
		if _, err := s.DeletePrefix(ctx, prefix); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("DeletePrefix(%q) = %v; want ErrInvalidKey", prefix, err)
		}
		if _, err := s.List(ctx, prefix); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("List(%q) = %v; want ErrInvalidKey", prefix, err)
		}
	}
}

func copyObject(t *testing.T, s blob.Store) {
	ctx := t.Context()
	Put(t, s, "uploads/up1.bin", "the upload")
	if err := s.Copy(ctx, "media/p1/source.mp4", "uploads/up1.bin"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "uploads/up1.bin"); err != nil {
		t.Fatal(err)
	}
	if got := Read(t, s, "media/p1/source.mp4"); got != "the upload" {
		t.Fatalf("the copy holds %q after its source was deleted", got)
	}
	Put(t, s, "media/p1/c01.mp4", "render")
	if err := s.Copy(ctx, "media/p1/source.mp4", "media/p1/c01.mp4"); err != nil {
		t.Fatal(err)
	}
	if got := Read(t, s, "media/p1/source.mp4"); got != "render" {
		t.Fatalf("a copy over an object holds %q", got)
	}
	if err := s.Copy(ctx, "media/p1/x.mp4", "uploads/gone.bin"); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Copy of a missing key = %v; want ErrNotFound", err)
	}
}

// copyAddsBytes: AddedBy says what a copy costs, 0 on a store whose copies
// share bytes (CopiesShareBytes), the object's size elsewhere, and the size
// of an object written over the copy on every store.
func copyAddsBytes(t *testing.T, s blob.Store) {
	ctx := t.Context()
	const body = "twelve bytes"
	Put(t, s, "media/p1/c01.mp4", body)
	if err := s.Copy(ctx, "published/a1/post1/clip.mp4", "media/p1/c01.mp4"); err != nil {
		t.Fatal(err)
	}
	want := int64(len(body))
	if blob.CopiesShareBytes(s) {
		want = 0
	}
	if n, err := blob.AddedBy(ctx, s, "published/a1/post1/clip.mp4", "media/p1/c01.mp4"); err != nil || n != want {
		t.Errorf("AddedBy a copy = %d, %v; want %d (CopiesShareBytes %v)", n, err, want, blob.CopiesShareBytes(s))
	}
	Put(t, s, "published/a1/post2/clip.mp4", "other bytes")
	if n, err := blob.AddedBy(ctx, s, "published/a1/post2/clip.mp4", "media/p1/c01.mp4"); err != nil || n != 11 {
		t.Errorf("AddedBy an object of its own = %d, %v; want 11", n, err)
	}
	if err := s.Delete(ctx, "media/p1/c01.mp4"); err != nil {
		t.Fatal(err)
	}
	if n, err := blob.AddedBy(ctx, s, "published/a1/post1/clip.mp4", "media/p1/c01.mp4"); err != nil || n != int64(len(body)) {
		t.Errorf("AddedBy a copy whose source is gone = %d, %v; want %d: it holds the bytes alone", n, err, len(body))
	}
	if _, err := blob.AddedBy(ctx, s, "published/a1/gone/clip.mp4", "media/p1/c01.mp4"); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("AddedBy a missing object = %v; want ErrNotFound", err)
	}
}

func deleteObject(t *testing.T, s blob.Store) {
	ctx := t.Context()
	Put(t, s, "media/p1/c01.mp4", "x")
	if err := s.Delete(ctx, "media/p1/c01.mp4"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Stat(ctx, "media/p1/c01.mp4"); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Stat after Delete = %v; want ErrNotFound", err)
	}
	if err := s.Delete(ctx, "media/p1/c01.mp4"); err != nil {
		t.Errorf("Delete of a key already gone = %v; want nil", err)
	}
}

func listAndDeletePrefix(t *testing.T, s blob.Store) {
	ctx := t.Context()
	for key, body := range map[string]string{
		"media/p1/c01.mp4": "12345", "media/p1/c01.srt": "123", "media/p1/sub/x": "1",
		"media/p10/c01.mp4": "keep", "media/p2/c01.mp4": "keep", "uploads/up1.bin": "keep",
	} {
		Put(t, s, key, body)
	}
	list, err := s.List(ctx, "media/p1/")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, i := range list {
		keys = append(keys, fmt.Sprintf("%s:%d", i.Key, i.Size))
	}
	if want := []string{"media/p1/c01.mp4:5", "media/p1/c01.srt:3", "media/p1/sub/x:1"}; !slices.Equal(keys, want) {
		t.Fatalf("List(media/p1/) = %v; want %v", keys, want)
	}
	n, err := s.DeletePrefix(ctx, "media/p1/")
	if err != nil || n != 9 {
		t.Fatalf("DeletePrefix = %d, %v; want 9 bytes", n, err)
	}
	if list, _ := s.List(ctx, "media/p1/"); len(list) != 0 {
		t.Errorf("after DeletePrefix List = %v", list)
	}
	for _, key := range []string{"media/p10/c01.mp4", "media/p2/c01.mp4", "uploads/up1.bin"} {
		if got := Read(t, s, key); got != "keep" {
			t.Errorf("%s holds %q after DeletePrefix(media/p1/)", key, got)
		}
	}
}

func putFile(t *testing.T, s blob.Store) {
	path := filepath.Join(t.TempDir(), "render.mp4")
	if err := os.WriteFile(path, []byte("rendered"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := blob.PutFile(t.Context(), s, "media/p1/c01.mp4", path); err != nil {
		t.Fatal(err)
	}
	if got := Read(t, s, "media/p1/c01.mp4"); got != "rendered" {
		t.Fatalf("PutFile stored %q", got)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("PutFile left the local file: %v", err)
	}
}

func localFile(t *testing.T, s blob.Store) {
	Put(t, s, "media/p1/source.mp4", "source bytes")
	path, err := blob.LocalFile(t.Context(), s, "media/p1/source.mp4", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "source bytes" {
		t.Fatalf("LocalFile's %s holds %q, %v", path, b, err)
	}
	if _, err := blob.LocalFile(t.Context(), s, "media/p1/none.mp4", t.TempDir()); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("LocalFile of a missing key = %v; want ErrNotFound", err)
	}
}

// storeFile: the file is stored, and the path handed back reads the same
// bytes (the object's own file, or the one stored, kept).
func storeFile(t *testing.T, s blob.Store) {
	path := filepath.Join(t.TempDir(), "download.part")
	if err := os.WriteFile(path, []byte("downloaded"), 0o644); err != nil {
		t.Fatal(err)
	}
	local, err := blob.StoreFile(t.Context(), s, "media/p1/source.mp4", path)
	if err != nil {
		t.Fatal(err)
	}
	if got := Read(t, s, "media/p1/source.mp4"); got != "downloaded" {
		t.Fatalf("StoreFile stored %q", got)
	}
	if b, err := os.ReadFile(local); err != nil || string(b) != "downloaded" {
		t.Fatalf("StoreFile's local file %s holds %q, %v", local, b, err)
	}
}

// presign checks an address a store hands out serves the object; a store
// that hands out none says so with ErrNoPresign.
func presign(t *testing.T, s blob.Store) {
	ctx := t.Context()
	Put(t, s, "media/p1/c01.mp4", "served bytes")
	addr, err := s.Presign(ctx, "media/p1/c01.mp4", time.Hour)
	if errors.Is(err, blob.ErrNoPresign) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, addr, nil)
	if err != nil {
		t.Fatalf("presigned address %q: %v", addr, err)
	}
	req.Header.Set("Range", "bytes=7-")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(b, []byte("bytes")) {
		t.Fatalf("GET %s with Range bytes=7- = %d %q; want 206 \"bytes\"", addr, resp.StatusCode, b)
	}
	if _, err := s.Presign(ctx, "media/../x", time.Hour); !errors.Is(err, blob.ErrInvalidKey) {
		t.Errorf("Presign of an invalid key = %v; want ErrInvalidKey", err)
	}
}
