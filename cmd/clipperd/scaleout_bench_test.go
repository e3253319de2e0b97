package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkScaleOutWorkers measures the throughput of worker nodes: the
// same projects made by 1 `clipperd worker` pinned to core 0 against 2
// workers pinned to cores 0 and 1 (taskset; the ffmpeg they start inherit
// the pin), side by side in one run on one cluster (PostgreSQL, MinIO and
// an API-only node, none of them pinned). Each round runs both, which one
// first alternating; a run creates the projects, waits until all are
// COMPLETE, and stops its workers. It prints the Markdown table of
// BENCHMARKS.md:
//
//	go test -run '^$' -bench BenchmarkScaleOutWorkers -benchtime 1x -timeout 60m ./cmd/clipperd/
//
// CLIPPER_BENCH_ROUNDS (default 2) and CLIPPER_BENCH_PROJECTS (default 8)
// change the rounds and the projects per run.
func BenchmarkScaleOutWorkers(b *testing.B) {
	rounds, projects := benchEnv(b, "CLIPPER_BENCH_ROUNDS", 2), benchEnv(b, "CLIPPER_BENCH_PROJECTS", 8)
	const source = 40 * time.Second
	c := newCluster(b)
	upload := c.upload(source)
	setups := [][]int{{0}, {0, 1}} // the cores of the workers
	type run struct {
		wall       [2]time.Duration
		load       [2]string
		firstSetup int
	}
	var runs []run
	for round := range rounds {
		r := run{firstSetup: round % 2}
		for i := range setups {
			setup := (r.firstSetup + i) % 2
			r.wall[setup], r.load[setup] = c.timeProjects(b, upload, projects, setups[setup], fmt.Sprintf("r%d", round))
			b.Logf("round %d: %d worker(s): %d projects in %s (load %s)", round+1, len(setups[setup]), projects, r.wall[setup].Round(10*time.Millisecond), r.load[setup])
		}
		runs = append(runs, r)
	}

	var ratios []float64
	var out strings.Builder
	fmt.Fprintf(&out, "| round (first run) | 1 worker (`taskset -c 0`) | load | 2 workers (`-c 0`, `-c 1`) | load | speed-up |\n|---|---|---|---|---|---|\n")
	for i, r := range runs {
		ratio := r.wall[0].Seconds() / r.wall[1].Seconds()
		ratios = append(ratios, ratio)
		first := "1 worker"
		if r.firstSetup == 1 {
			first = "2 workers"
		}
		fmt.Fprintf(&out, "| %d (%s) | %.1f s | %s | %.1f s | %s | %.2f |\n", i+1, first,
			r.wall[0].Seconds(), r.load[0], r.wall[1].Seconds(), r.load[1], ratio)
	}
	slices.Sort(ratios)
	median := ratios[len(ratios)/2]
	if len(ratios)%2 == 0 {
		median = (ratios[len(ratios)/2-1] + ratios[len(ratios)/2]) / 2
	}
	fmt.Fprintf(&out, "| median | | | | | **%.2f** |\n", median)
	fmt.Printf("\n%d projects of a generated %s 320x240 talk per run (portrait clips of 8-15 s, no recogniser):\n\n%s\n", projects, source, out.String())
	b.ReportMetric(median, "speedup")
}

// timeProjects starts workers pinned to cpus, creates n projects of upload
// and returns the time until all are COMPLETE, with the load average
// before and after; the workers are stopped before it returns.
func (c *cluster) timeProjects(b *testing.B, upload string, n int, cpus []int, tag string) (time.Duration, string) {
	b.Helper()
	var workers []*node
	for _, cpu := range cpus {
		workers = append(workers, c.startWorker(fmt.Sprintf("%s-%dw-cpu%d", tag, len(cpus), cpu), cpu))
	}
	before := loadAverage()
	start := time.Now()
	c.waitComplete(c.createProjects(upload, n, ""), 30*time.Minute)
	wall := time.Since(start)
	load := before + " → " + loadAverage()
	for _, w := range workers {
		w.stop(b)
	}
	return wall, load
}

// loadAverage is the one-minute load average, "?" where /proc has none.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(data))[0]
}

// benchEnv is the positive integer in the environment variable name, or def.
func benchEnv(b *testing.B, name string, def int) int {
	b.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}
