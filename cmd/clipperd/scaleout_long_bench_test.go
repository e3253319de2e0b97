package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
	"github.com/clipperhq/terraform-provider-clipper/internal/stagetimes"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// BenchmarkScaleOutLongSource measures what workers do for ONE long project
// (issue 30): one project of a generated 20-minute 1280x720 talk with
// speech, made by 1 `clipperd worker` pinned to core 0 against 2 workers
// pinned to cores 0 and 1, with the speech recogniser on (`--asr
// pocketsphinx`), on the cluster and in the rounds of
// BenchmarkScaleOutWorkers (its CLIPPER_BENCH_NICE too). The project asks
// for clips of 20-45 s, as `bench pipeline` does (one clip per 90 s of
// source: 13 of 20 minutes). It prints the table of create to COMPLETE,
// the speed-up and the workers' CPU, and the time the project spent in each
// stage (the workers' "project stage" log lines):
//
//	CLIPPER_BENCH_NICE=-10 go test -run '^$' -bench BenchmarkScaleOutLongSource -benchtime 1x -timeout 3h ./cmd/clipperd/
//
// CLIPPER_BENCH_ROUNDS (default 1) and CLIPPER_BENCH_SOURCE_MIN (the
// source's minutes, default 20) change the rounds and the source.
func BenchmarkScaleOutLongSource(b *testing.B) {
	nRounds := benchEnv(b, "CLIPPER_BENCH_ROUNDS", 1, 1)
	length := time.Duration(benchEnv(b, "CLIPPER_BENCH_SOURCE_MIN", 20, 1)) * time.Minute
	toolexectest.RequireTools(b, transcribe.PocketsphinxTool)
	c := newCluster(b)
	c.nice = benchEnv(b, "CLIPPER_BENCH_NICE", 0, -20) // the API node is started: only workers get it
	c.asr, c.clipLen = "pocketsphinx", [2]float64{20, 45}

	start := time.Now()
	src := c.generate(testvideo.Options{Duration: length, Width: 1280, Height: 720})
	generated := time.Since(start)
	upload := c.uploadFile(src)
	// One worker on one core makes a 60-minute source in about 1.5 times
	// its length on a quiet machine; a loaded one takes longer.
	limit := 4*length + 10*time.Minute
	rounds := alternate(b, nRounds, func(cpus []int, tag string) measured {
		return c.timeProjects(b, upload, 1, cpus, tag, limit)
	})

	words := c.transcribed(b, rounds)
	table, median := speedupTable(rounds)
	var headings []string
	var columns []stagetimes.Times
	for i, r := range rounds {
		for setup, m := range r.run {
			headings = append(headings, fmt.Sprintf("round %d, %d worker%s", i+1, len(setups[setup]), plural(len(setups[setup]))))
			columns = append(columns, m.stages)
		}
	}
	fmt.Printf("\nOne project of a generated %s 1280x720 talk with speech (made in %s) per run (portrait clips of 20-45 s, "+
		"--asr pocketsphinx: %d words), workers at nice %d:\n\n%s\nThe project's time in each stage (the workers' logs):\n\n%s\n",
		length, generated.Round(time.Second), words, c.nice, table, stagetimes.Markdown(headings, columns))
	b.ReportMetric(median, "speedup")
}

// transcribed checks that the recogniser heard the talk in every run of
// rounds (a project without a transcript would have skipped the work this
// benchmark is about) and returns the words of the first.
func (c *cluster) transcribed(b *testing.B, rounds []round) int {
	b.Helper()
	st := c.openStore(b)
	defer st.Close()
	words := -1
	for _, r := range rounds {
		for _, m := range r.run {
			for _, id := range m.projects {
				got, err := st.Transcript(b.Context(), id)
				if err != nil || len(got) == 0 {
					b.Fatalf("project %s: %d words transcribed (%v), want the talk's", id, len(got), err)
				}
				if words < 0 {
					words = len(got)
				}
			}
		}
	}
	return words
}
