package testvideo

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkGenerate10Min720p times the file the media benchmarks need at full size.
func BenchmarkGenerate10Min720p(b *testing.B) {
	if testing.Short() {
		b.Skip("long benchmark")
	}
	path := filepath.Join(b.TempDir(), "bench.mp4")
	for b.Loop() {
		if err := Generate(context.Background(), path, Options{Duration: 10 * time.Minute, Width: 1280, Height: 720}); err != nil {
			b.Fatal(err)
		}
	}
}
