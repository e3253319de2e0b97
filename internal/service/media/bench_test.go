package media

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// benchSource is the file both benchmarks decode, so their times compare directly. Its length
// and size come from CLIPPER_BENCH_SECONDS (default 120) and CLIPPER_BENCH_SIZE (default
// 1280x720).
func benchSource(b *testing.B) string {
	b.Helper()
	seconds, w, h := 120, 1280, 720
	if v := os.Getenv("CLIPPER_BENCH_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("CLIPPER_BENCH_SECONDS=%q: want a positive whole number of seconds", v)
		}
		seconds = n
	}
	if v := os.Getenv("CLIPPER_BENCH_SIZE"); v != "" {
		if _, err := fmt.Sscanf(v, "%dx%d", &w, &h); err != nil {
			b.Fatalf("CLIPPER_BENCH_SIZE=%q: want WIDTHxHEIGHT", v)
		}
	}
	path, _ := sourceVideo(b, seconds, w, h)
	return path
}

// BenchmarkAnalyze is the single analysis pass over benchSource.
func BenchmarkAnalyze(b *testing.B) {
	src := benchSource(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Analyze(context.Background(), src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlainDecode is the baseline: ffmpeg decoding benchSource and discarding it.
func BenchmarkPlainDecode(b *testing.B) {
	src := benchSource(b)
	b.ResetTimer()
	for b.Loop() {
		out, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-i", src, "-f", "null", "-").CombinedOutput()
		if err != nil {
			b.Fatalf("plain decode: %v: %s", err, out)
		}
	}
}
