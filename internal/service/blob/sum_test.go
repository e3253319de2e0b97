package blob_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
)

// TestSumsFindDamage: a file stored with its Sum verifies; cut, it fails on
// its size before a byte is read; altered in place at the same size, a
// whole read fails instead of handing out its last bytes, and Verify says so.
func TestSumsFindDamage(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	d, err := blob.NewDir(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	const key = "media/p1/c01.mp4"
	src := filepath.Join(t.TempDir(), "render")
	content := make([]byte, 300_000)
	for i := range content {
		content[i] = byte(i * 7)
	}
	if err := os.WriteFile(src, content, 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := blob.PutFileSum(t.Context(), d, key, src)
	if err != nil || sum.Size != int64(len(content)) {
		t.Fatalf("PutFileSum = %+v, %v", sum, err)
	}
	readAll := func() ([]byte, error) {
		r, err := d.Open(t.Context(), key)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		v, err := blob.Verifying(r, sum)
		if err != nil {
			return nil, err
		}
		return io.ReadAll(v)
	}
	if got, err := readAll(); err != nil || len(got) != len(content) {
		t.Fatalf("a whole file read %d bytes, %v", len(got), err)
	}
	if err := blob.Verify(t.Context(), d, key, sum); err != nil {
		t.Fatalf("Verify of a whole file: %v", err)
	}

	path := filepath.Join(root, filepath.FromSlash(key))
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("altered"), 1000); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	got, err := readAll()
	if !errors.Is(err, blob.ErrDamaged) || len(got) >= len(content) {
		t.Errorf("an altered file read %d of %d bytes, %v; want a damaged error before the last bytes", len(got), len(content), err)
	}
	if err := blob.Verify(t.Context(), d, key, sum); !errors.Is(err, blob.ErrDamaged) {
		t.Errorf("Verify of an altered file = %v; want ErrDamaged", err)
	}

	if err := os.Truncate(path, 1000); err != nil {
		t.Fatal(err)
	}
	if got, err := readAll(); !errors.Is(err, blob.ErrDamaged) || got != nil {
		t.Errorf("a cut file read %d bytes, %v; want a damaged error before any", len(got), err)
	}
	if err := blob.Verify(t.Context(), d, key, sum); !errors.Is(err, blob.ErrDamaged) {
		t.Errorf("Verify of a cut file = %v; want ErrDamaged", err)
	}
}

// BenchmarkWholeRead is what checking a whole download costs: a 20 MB
// render read to the end as GET /media sends it, plain and through
// Verifying (a SHA-256 of the bytes read anyway), and Verify, the publish
// worker's read before a post (Stat, then a read of its own).
func BenchmarkWholeRead(b *testing.B) {
	root := b.TempDir()
	d, err := blob.NewDir(root, nil)
	if err != nil {
		b.Fatal(err)
	}
	const key = "media/p1/c01.mp4"
	src := filepath.Join(b.TempDir(), "render")
	content := make([]byte, 20<<20)
	for i := range content {
		content[i] = byte(i * 7)
	}
	if err := os.WriteFile(src, content, 0o644); err != nil {
		b.Fatal(err)
	}
	sum, err := blob.PutFileSum(b.Context(), d, key, src)
	if err != nil {
		b.Fatal(err)
	}
	read := func(b *testing.B, verify bool) {
		b.SetBytes(sum.Size)
		for b.Loop() {
			r, err := d.Open(b.Context(), key)
			if err != nil {
				b.Fatal(err)
			}
			var from io.Reader = r
			if verify {
				if from, err = blob.Verifying(r, sum); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := io.Copy(io.Discard, from); err != nil {
				b.Fatal(err)
			}
			_ = r.Close()
		}
	}
	b.Run("plain", func(b *testing.B) { read(b, false) })
	b.Run("verifying", func(b *testing.B) { read(b, true) })
	b.Run("verify-before-publish", func(b *testing.B) {
		b.SetBytes(sum.Size)
		for b.Loop() {
			if err := blob.Verify(b.Context(), d, key, sum); err != nil {
				b.Fatal(err)
			}
		}
	})
}
