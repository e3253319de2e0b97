package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/stagetimes"
)

// BenchmarkScaleOutWorkers measures the throughput of worker nodes: the
// same projects made by 1 `clipperd worker` pinned to core 0 against 2
// workers pinned to cores 0 and 1 (taskset; the ffmpeg they start inherit
// the pin), side by side in one run on one cluster (PostgreSQL, MinIO and
// an API-only node, none of them pinned). Each round runs both, which one
// first alternating; a run creates the projects, waits until all are
// COMPLETE, and stops its workers. It prints the Markdown table kept in
// bench/history/worker-nodes.md (BENCHMARKS.md gives today's figures):
//
//	go test -run '^$' -bench BenchmarkScaleOutWorkers -benchtime 1x -timeout 60m ./cmd/clipperd/
//
// CLIPPER_BENCH_ROUNDS (default 2) and CLIPPER_BENCH_PROJECTS (default 8)
// change the rounds and the projects per run. CLIPPER_BENCH_NICE (e.g.
// -10, as root) runs each worker in a session of its own whose scheduling
// group (Linux's autogroup) has that niceness, so that the other sessions
// of a shared machine take little of their cores; the process's own nice
// value would weigh it only against the processes of its session.
func BenchmarkScaleOutWorkers(b *testing.B) {
	nRounds, projects := benchEnv(b, "CLIPPER_BENCH_ROUNDS", 2, 1), benchEnv(b, "CLIPPER_BENCH_PROJECTS", 8, 1)
	const source = 40 * time.Second
	c := newCluster(b)
	c.nice = benchEnv(b, "CLIPPER_BENCH_NICE", 0, -20) // the API node is started: only workers get it
	upload := c.upload(source)
	rounds := alternate(b, nRounds, func(cpus []int, tag string) measured {
		return c.timeProjects(b, upload, projects, cpus, tag, 30*time.Minute)
	})
	table, median := speedupTable(rounds)
	fmt.Printf("\n%d projects of a generated %s 320x240 talk per run (portrait clips of 8-15 s, no recogniser), workers at nice %d:\n\n%s\n", projects, source, c.nice, table)
	b.ReportMetric(median, "speedup")
}

// setups are the two sides of a round: the cores of 1 worker and of 2.
var setups = [2][]int{{0}, {0, 1}}

// round is one run of each setup.
type round struct {
	run   [2]measured // by setup
	first int         // the setup run first
}

// alternate runs n rounds of both setups with run, which setup first
// alternating between rounds, so a drift of the machine's load hits both.
func alternate(b *testing.B, n int, run func(cpus []int, tag string) measured) []round {
	b.Helper()
	var rounds []round
	for i := range n {
		r := round{first: i % 2}
		for j := range setups {
			setup := (r.first + j) % 2
			r.run[setup] = run(setups[setup], fmt.Sprintf("r%d", i))
			b.Logf("round %d: %d worker(s): %s", i+1, len(setups[setup]), r.run[setup])
		}
		rounds = append(rounds, r)
	}
	return rounds
}

// speedupTable is the Markdown table of rounds (BENCHMARKS.md's) and their
// median speed-up of 2 workers over 1.
func speedupTable(rounds []round) (string, float64) {
	var ratios []float64
	var out strings.Builder
	fmt.Fprintf(&out, "| round (first run) | 1 worker (`taskset -c 0`): wall, workers' CPU, load | 2 workers (`-c 0`, `-c 1`): wall, workers' CPU, load | speed-up |\n|---|---|---|---|\n")
	for i, r := range rounds {
		ratio := r.run[0].wall.Seconds() / r.run[1].wall.Seconds()
		ratios = append(ratios, ratio)
		fmt.Fprintf(&out, "| %d (%d worker%s) | %s | %s | %.2f |\n", i+1, len(setups[r.first]), plural(len(setups[r.first])), r.run[0], r.run[1], ratio)
	}
	slices.Sort(ratios)
	median := ratios[len(ratios)/2]
	if len(ratios)%2 == 0 {
		median = (ratios[len(ratios)/2-1] + ratios[len(ratios)/2]) / 2
	}
	fmt.Fprintf(&out, "| median | | | **%.2f** |\n", median)
	return out.String(), median
}

// measured is one run of projects: the time until all were COMPLETE, the
// CPU time the workers used (their ffmpeg included), on how many cores,
// the load average before and after, and the projects' time in each stage
// (summed over the projects).
type measured struct {
	wall, cpu time.Duration
	cores     int
	load      string
	steal     float64 // the share of the machine's CPU time the hypervisor took meanwhile
	stages    stagetimes.Times
	projects  []string // their ids
}

func (m measured) String() string {
	return fmt.Sprintf("%.1f s, %.1f s (%.0f%% of %d core%s), load %s, steal %.0f%%", m.wall.Seconds(), m.cpu.Seconds(),
		100*m.cpu.Seconds()/m.wall.Seconds()/float64(m.cores), m.cores, plural(m.cores), m.load, 100*m.steal)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// timeProjects starts workers pinned to cpus, creates n projects of upload
// and measures the time until all are COMPLETE, failing after limit; the
// workers are stopped before it returns.
func (c *cluster) timeProjects(b *testing.B, upload string, n int, cpus []int, tag string, limit time.Duration) measured {
	b.Helper()
	var workers []*node
	for _, cpu := range cpus {
		workers = append(workers, c.startWorker(fmt.Sprintf("%s-%dw-cpu%d", tag, len(cpus), cpu), cpu))
	}
	m := measured{cores: len(cpus), load: loadAverage()}
	steal0, total0 := cpuTicks()
	start := time.Now()
	ids := c.createProjects(upload, n, "")
	c.waitComplete(ids, limit)
	m.wall = time.Since(start)
	m.load += " → " + loadAverage()
	if steal1, total1 := cpuTicks(); total1 > total0 {
		m.steal = float64(steal1-steal0) / float64(total1-total0)
	}
	for _, w := range workers {
		w.stop(b)
		// A process's usage counts the children it waited for: ffmpeg.
		m.cpu += w.cmd.ProcessState.UserTime() + w.cmd.ProcessState.SystemTime()
	}
	m.stages, m.projects = stageTimes(b, ids, append(workers, c.api)), ids
	return m
}

// stageTimes are the time the projects ids spent in each stage, summed,
// as the logs of nodes say.
func stageTimes(b *testing.B, ids []string, nodes []*node) stagetimes.Times {
	b.Helper()
	var logs []map[string]stagetimes.Times
	for _, n := range nodes {
		l, err := stagetimes.Read(strings.NewReader(n.logText()))
		if err != nil {
			b.Fatalf("%s's log: %v", n.name, err)
		}
		logs = append(logs, l)
	}
	return stagetimes.Sum(ids, logs...)
}

// cpuTicks are the machine's CPU time stolen by the hypervisor and its
// total, in ticks since boot (/proc/stat; 0, 0 where there is none).
func cpuTicks() (steal, total int64) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	fields := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	for i, f := range fields[1:] {
		n, _ := strconv.ParseInt(f, 10, 64)
		if i < 8 { // guest times are counted in user already
			total += n
		}
		if i == 7 {
			steal = n
		}
	}
	return steal, total
}

// loadAverage is the one-minute load average, "?" where /proc has none.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(data))[0]
}

// benchEnv is the integer in the environment variable name, at least
// least, or def when it is not set.
func benchEnv(b *testing.B, name string, def, least int) int {
	b.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < least {
		b.Fatalf("%s=%q: want an integer of at least %d", name, v, least)
	}
	return n
}
