package s3blob_test

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/miniotest"
)

// BenchmarkCopyAllToBucket measures what `clipperd migrate` does with the
// media, side by side: CopyAll of a data directory's 64 renders of 1 MiB
// into a fresh bucket, one object at a time and blob.CopyWorkers at a time,
// and the same again over a bucket that holds them all (a re-run after an
// interruption: a HEAD per object). The command is in BENCHMARKS.md.
func BenchmarkCopyAllToBucket(b *testing.B) {
	srv := miniotest.Start(b)
	dir, err := blob.NewDir(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	body := bytes.Repeat([]byte("0123456789abcdef"), (1<<20)/16)
	const objects = 64
	for i := range objects {
		if err := blob.Write(b.Context(), dir, blob.MediaKey("p"+strconv.Itoa(i%8), fmt.Sprintf("c%02d.mp4", i)), bytes.NewReader(body)); err != nil {
			b.Fatal(err)
		}
	}
	for _, workers := range []int{1, blob.CopyWorkers} {
		b.Run(fmt.Sprintf("Workers%d/Copy", workers), func(b *testing.B) {
			b.SetBytes(objects << 20)
			for b.Loop() {
				b.StopTimer()
				bucket := newStore(b, srv, "")
				b.StartTimer()
				if r, err := blob.CopyAll(b.Context(), bucket, dir, blob.Roots(), workers, nil); err != nil || r.Copied != objects {
					b.Fatalf("copy: %+v %v", r, err)
				}
			}
		})
		b.Run(fmt.Sprintf("Workers%d/Rerun", workers), func(b *testing.B) {
			bucket := newStore(b, srv, "")
			if _, err := blob.CopyAll(b.Context(), bucket, dir, blob.Roots(), workers, nil); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if r, err := blob.CopyAll(b.Context(), bucket, dir, blob.Roots(), workers, nil); err != nil || r.Skipped != objects {
					b.Fatalf("re-run: %+v %v", r, err)
				}
			}
		})
	}
}
