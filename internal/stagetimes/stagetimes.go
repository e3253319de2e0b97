// Package stagetimes reads, from clipperd's log, the time a project spent
// in each stage of the pipeline, for the benchmarks that time whole
// projects (`bench pipeline`, the scale-out benchmarks of cmd/clipperd):
// create to COMPLETE says how long, the stages say where it went.
//
// It reads the pipeline's "project stage" lines as log/slog's text handler
// writes them (clipperd's log format):
//
//	level=INFO msg="project stage" project=prj_1 from=CURATE to=REFINE took=1m2.5s
package stagetimes

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// Times is the time a project spent in each stage it left, summed over its
// runs (a stage entered again after an interruption counts each time).
type Times map[apitypes.Stage]time.Duration

// Order is the order of the stages in a table: the pipeline's, QUEUED first
// (the wait for a worker, both before the import and, for a source fetched
// from the network, between the import leg and the run).
var Order = []apitypes.Stage{
	apitypes.StageQueued, apitypes.StageImport, apitypes.StageCurate, apitypes.StageRefine,
	apitypes.StageRender, apitypes.StageUpload,
}

var (
	stageMsg = regexp.MustCompile(`\bmsg="project stage"`)
	field    = func(key string) *regexp.Regexp { return regexp.MustCompile(`\s` + key + `=(\S+)`) }
	project  = field("project")
	from     = field("from")
	took     = field("took")
)

// Read sums the times of the stage lines of each project in the log r; a
// line without a time (a watchdog's requeue) is skipped.
func Read(r io.Reader) (map[string]Times, error) {
	out := map[string]Times{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024) // error lines can be long
	for sc.Scan() {
		line := sc.Text()
		if !stageMsg.MatchString(line) {
			continue
		}
		p, f, t := project.FindStringSubmatch(line), from.FindStringSubmatch(line), took.FindStringSubmatch(line)
		if p == nil || f == nil || t == nil {
			continue
		}
		d, err := time.ParseDuration(t[1])
		if err != nil {
			return nil, fmt.Errorf("stagetimes: took=%s in %q: %w", t[1], line, err)
		}
		if out[p[1]] == nil {
			out[p[1]] = Times{}
		}
		out[p[1]][apitypes.Stage(f[1])] += d
	}
	return out, sc.Err()
}

// Sum is the stage times of projects added up, from all of logs (the
// processes that ran them each write their own); projects not in any log
// add nothing.
func Sum(projects []string, logs ...map[string]Times) Times {
	sum := Times{}
	for _, l := range logs {
		for _, id := range projects {
			for stage, d := range l[id] {
				sum[stage] += d
			}
		}
	}
	return sum
}

// Markdown is a table of stage times with one column per heading, a row
// per stage in Order (then any other stage found, as a newer clipperd may
// log more), and their total.
func Markdown(headings []string, columns []Times) string {
	stages := append([]apitypes.Stage(nil), Order...)
	for _, c := range columns {
		for stage := range c {
			if !slices.Contains(stages, stage) {
				stages = append(stages, stage)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| stage | %s |\n|---|%s\n", strings.Join(headings, " | "), strings.Repeat("---|", len(headings)))
	totals := make([]time.Duration, len(columns))
	for _, stage := range stages {
		fmt.Fprintf(&b, "| %s |", stage)
		for i, c := range columns {
			totals[i] += c[stage]
			fmt.Fprintf(&b, " %s |", seconds(c[stage]))
		}
		b.WriteString("\n")
	}
	b.WriteString("| total |")
	for _, t := range totals {
		fmt.Fprintf(&b, " %s |", seconds(t))
	}
	b.WriteString("\n")
	return b.String()
}

func seconds(d time.Duration) string {
	return fmt.Sprintf("%.1f s", d.Seconds())
}
