package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// loadOptions are the sizes of a load run.
type loadOptions struct {
	clients        int
	getTime        time.Duration
	uploads        int
	uploadMB       int64
	chunkMB        int64
	idle           int
	hold           time.Duration
	beforeRev, bin string
}

// loadRun is what one clipperd binary did under the load.
type loadRun struct {
	label     string
	gets      *latencies
	getTime   time.Duration
	getCPU    time.Duration // clipperd's CPU time during the GETs
	idleCPU   time.Duration // clipperd's CPU time over idleCPUTime with no request
	up        *uploadResult
	hwmBusy   int64 // VmHWM after the GETs and uploads, kB
	idle      *idleResult
	hwmFinal  int64 // VmHWM at the end, kB
	fdsBefore int   // descriptors before the idle phase
	fdLimit   string
}

// runLoad starts clipperd binaries on loopback and puts them under
// concurrent GETs, concurrent resumable uploads and thousands of idle
// connections: `go run ./bench load [--clipperd BIN] [--before REV]`.
func runLoad(ctx context.Context, args []string) error {
	o, err := parseLoadFlags(args)
	if err != nil {
		return err
	}
	limit, err := raiseFDLimit(uint64(o.idle) + 1000)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "clipper-load-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	bins, labels, err := loadBinaries(ctx, o, work)
	if err != nil {
		return err
	}
	runs := make([]*loadRun, 0, len(bins))
	for i, bin := range bins {
		fmt.Fprintf(os.Stderr, "load: %s (%s)\n", labels[i], bin)
		r, err := loadOne(ctx, o, bin, labels[i], work)
		if err != nil {
			return fmt.Errorf("%s: %w", labels[i], err)
		}
		runs = append(runs, r)
	}
	printLoad(o, runs, limit)
	return nil
}

func parseLoadFlags(args []string) (loadOptions, error) {
	var o loadOptions
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.StringVar(&o.bin, "clipperd", "", "clipperd binary to load (default: build ./cmd/clipperd of this tree)")
	fs.StringVar(&o.beforeRev, "before", "", "git revision to build clipperd at and run first, side by side")
	fs.IntVar(&o.clients, "clients", 50, "concurrent GET clients")
	fs.DurationVar(&o.getTime, "get-time", 10*time.Second, "how long the GET clients run")
	fs.IntVar(&o.uploads, "uploads", 10, "concurrent resumable uploads")
	fs.Int64Var(&o.uploadMB, "upload-mb", 20, "size of each upload in MB")
	fs.Int64Var(&o.chunkMB, "chunk-mb", 5, "size of each upload PUT in MB")
	fs.IntVar(&o.idle, "idle", 10000, "idle keep-alive connections")
	fs.DurationVar(&o.hold, "hold", 20*time.Second, "how long the idle connections are held before looking again")
	return o, fs.Parse(args)
}

// loadBinaries builds what the run compares: clipperd at --before, if
// given, and the binary under test (--clipperd, or this tree).
func loadBinaries(ctx context.Context, o loadOptions, work string) (bins, labels []string, err error) {
	if o.beforeRev != "" {
		bin := filepath.Join(work, "clipperd-before")
		if err := buildAtRevision(ctx, o.beforeRev, work, bin); err != nil {
			return nil, nil, err
		}
		bins, labels = append(bins, bin), append(labels, "before ("+o.beforeRev+")")
	}
	bin := o.bin
	if bin == "" {
		bin = filepath.Join(work, "clipperd-current")
		if err := buildClipperd(ctx, ".", bin); err != nil {
			return nil, nil, err
		}
	}
	return append(bins, bin), append(labels, "current"), nil
}

// idleCPUTime is how long clipperd is watched with no request, for what
// its background loops (job system, watchdog, scheduler) cost.
const idleCPUTime = 10 * time.Second

// cpuDuring is the CPU time clipperd uses while f runs.
func (p *clipperdProc) cpuDuring(f func()) (time.Duration, error) {
	before, err := p.cpuTime()
	if err != nil {
		return 0, err
	}
	f()
	after, err := p.cpuTime()
	return after - before, err
}

func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// loadOne runs the three phases against one binary.
func loadOne(ctx context.Context, o loadOptions, bin, label, work string) (*loadRun, error) {
	p, err := startClipperd(ctx, bin, work)
	if err != nil {
		return nil, err
	}
	defer p.stop()
	r := &loadRun{label: label, getTime: o.getTime}
	if r.idleCPU, err = p.cpuDuring(func() { sleepCtx(ctx, idleCPUTime) }); err != nil {
		return nil, err
	}
	if r.getCPU, err = p.cpuDuring(func() { r.gets = getPhase(ctx, p, o.clients, o.getTime) }); err != nil {
		return nil, err
	}
	r.up = uploadPhase(ctx, p, o.uploads, o.uploadMB<<20, o.chunkMB<<20)
	if r.hwmBusy, err = p.status("VmHWM"); err != nil {
		return nil, err
	}
	r.fdsBefore, _ = p.openFDs()
	if r.fdLimit, err = p.fdLimit(); err != nil {
		return nil, err
	}
	r.idle = idlePhase(ctx, p, o.idle, o.hold)
	if r.hwmFinal, err = p.status("VmHWM"); err != nil {
		return nil, err
	}
	return r, ctx.Err()
}

// printLoad prints the runs side by side as a Markdown table.
func printLoad(o loadOptions, runs []*loadRun, fdLimit uint64) {
	fmt.Printf("### Load run: %d GET clients for %s, %d × %d MB resumable uploads, %d idle connections\n\n",
		o.clients, o.getTime, o.uploads, o.uploadMB, o.idle)
	fmt.Printf("clipperd on 127.0.0.1, `--rate-limit 1000000` so the limiter stays out of the way; %d cores, %s; "+
		"client descriptor limit %d.\n\n", runtime.NumCPU(), runtime.Version(), fdLimit)
	head := "| measure |"
	sep := "|---|"
	for _, r := range runs {
		head += " " + r.label + " |"
		sep += "---|"
	}
	fmt.Println(head)
	fmt.Println(sep)
	for _, row := range loadRows(o) {
		line := "| " + row.name + " |"
		for _, r := range runs {
			line += " " + row.value(r) + " |"
		}
		fmt.Println(line)
	}
	fmt.Println()
	for _, r := range runs {
		for _, e := range []struct {
			what string
			err  error
		}{{"GET", r.gets.first}, {"upload", r.up.uploads.first}, {"idle connection", r.idle.firstErr},
			{"normal GET beside idle", r.idle.normal.first}, {"normal GET after hold", r.idle.normalLate.first}} {
			if e.err != nil {
				fmt.Printf("- %s, first %s error: %s\n", r.label, e.what, strings.TrimSpace(e.err.Error()))
			}
		}
	}
}

type loadRow struct {
	name  string
	value func(*loadRun) string
}

func loadRows(o loadOptions) []loadRow {
	mb := float64(int64(o.uploads) * o.uploadMB)
	return []loadRow{
		{"GET /api/collections: requests answered (errors)", func(r *loadRun) string {
			return fmt.Sprintf("%d (%d)", len(r.gets.ds), r.gets.errors)
		}},
		{"GET requests per second", func(r *loadRun) string {
			return fmt.Sprintf("%.0f", float64(len(r.gets.ds))/r.getTime.Seconds())
		}},
		{"clipperd CPU time per GET (all cores)", func(r *loadRun) string {
			if len(r.gets.ds) == 0 {
				return "-"
			}
			return fmt.Sprintf("%.0f µs", float64(r.getCPU.Microseconds())/float64(len(r.gets.ds)))
		}},
		{fmt.Sprintf("clipperd CPU time idle for %s (background loops)", idleCPUTime), func(r *loadRun) string {
			return fmt.Sprintf("%d ms", r.idleCPU.Milliseconds())
		}},
		{"GET latency p50 / p99", func(r *loadRun) string { return p50p99(r.gets) }},
		{"uploads complete (errors)", func(r *loadRun) string {
			return fmt.Sprintf("%d (%d)", len(r.up.uploads.ds), r.up.uploads.errors)
		}},
		{"uploads: wall time, throughput", func(r *loadRun) string {
			return fmt.Sprintf("%.1f s, %.0f MB/s", r.up.wall.Seconds(), mb/r.up.wall.Seconds())
		}},
		{"upload (whole) p50 / p99", func(r *loadRun) string { return p50p99(&r.up.uploads) }},
		{fmt.Sprintf("chunk PUT (%d MB) p50 / p99", o.chunkMB), func(r *loadRun) string { return p50p99(&r.up.chunks) }},
		{"peak RSS (VmHWM) after GETs and uploads", func(r *loadRun) string { return mib(r.hwmBusy) }},
		{"server descriptors before the idle connections (its limit)", func(r *loadRun) string {
			return fmt.Sprintf("%d (%s)", r.fdsBefore, r.fdLimit)
		}},
		{fmt.Sprintf("idle keep-alive connections from 127.0.0.2: opened / failed (of %d)", o.idle), func(r *loadRun) string {
			return fmt.Sprintf("%d / %d", r.idle.opened, r.idle.failed)
		}},
		{"server descriptors / RSS with them open", func(r *loadRun) string {
			return fmt.Sprintf("%d / %s", r.idle.fdsOpen, mib(r.idle.rssOpen))
		}},
		{"normal GET from 127.0.0.1 meanwhile: answered of 20, p50 / p99", func(r *loadRun) string {
			return fmt.Sprintf("%d, %s", len(r.idle.normal.ds), p50p99(&r.idle.normal))
		}},
		{fmt.Sprintf("after %s idle: connections the server still holds", o.hold), func(r *loadRun) string {
			return fmt.Sprint(r.idle.stillOpenLate)
		}},
		{fmt.Sprintf("after %s idle: server descriptors", o.hold), func(r *loadRun) string { return fmt.Sprint(r.idle.fdsLate) }},
		{fmt.Sprintf("after %s idle: normal GET answered of 20, p50 / p99", o.hold), func(r *loadRun) string {
			return fmt.Sprintf("%d, %s", len(r.idle.normalLate.ds), p50p99(&r.idle.normalLate))
		}},
		{"peak RSS (VmHWM) at the end", func(r *loadRun) string { return mib(r.hwmFinal) }},
	}
}

func p50p99(l *latencies) string {
	if len(l.ds) == 0 {
		return "–"
	}
	return fmtDur(l.percentile(50)) + " / " + fmtDur(l.percentile(99))
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	default:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
}

func mib(kB int64) string { return fmt.Sprintf("%.0f MiB", float64(kB)/1024) }
