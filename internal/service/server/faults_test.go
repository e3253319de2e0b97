package server

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/miniotest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// envFaults runs TestProjectsRideOutOutages, minutes long: the measure of
// BENCHMARKS.md's table of outages under a run.
const envFaults = "CLIPPERD_FAULTS"

// TestProjectsRideOutOutages runs two projects on a server over a
// PostgreSQL and a MinIO of the test's own, and when the first project
// enters RENDER takes one of them away: PostgreSQL restarted (down 8 s),
// the bucket away 30 s or 90 s. Outages shorter than the retry window
// (60 s) cost no stage and no stall; the one longer stalls the stages it
// meets, which resume. Every project ends COMPLETE, charged once (the
// credits of the run without an outage).
func TestProjectsRideOutOutages(t *testing.T) {
	if os.Getenv(envFaults) == "" {
		t.Skip("minutes long: set " + envFaults + "=1 to run")
	}
	var baseline int64
	for _, fault := range []struct {
		name      string
		away      time.Duration
		bucket    bool
		wantStall bool
	}{
		{"none", 0, false, false},
		{"PostgreSQL restart", 8 * time.Second, false, false},
		{"bucket away 30 s", 30 * time.Second, true, false},
		{"bucket away 90 s", 90 * time.Second, true, true},
	} {
		t.Run(strings.ReplaceAll(fault.name, " ", "_"), func(t *testing.T) {
			r := outageRun(t, fault.away, fault.bucket)
			if fault.away == 0 {
				baseline = r.credits
			}
			t.Logf("| %s | %d | %d | %s | %d of %d (%d, once: %v) | %s |", fault.name, r.stalls, r.errors, r.final, r.credits, baseline,
				r.credits, r.credits == baseline, r.took.Round(time.Second))
			if !fault.wantStall && r.stalls != 0 {
				t.Errorf("%s: %d stages stalled, want none", fault.name, r.stalls)
			}
			if r.final != "2 COMPLETE" || r.credits != baseline {
				t.Errorf("%s: %s, %d credits; want 2 COMPLETE and %d credits", fault.name, r.final, r.credits, baseline)
			}
		})
	}
}

// outageResult is what one run under an outage measured: stages stalled,
// ERROR lines, the projects' final stages, the credits used, and the time
// from the create to the last project's end.
type outageResult struct {
	stalls, errors int
	final          string
	credits        int64
	took           time.Duration
}

func outageRun(t *testing.T, away time.Duration, bucket bool) outageResult {
	video := sourceVideo(t)
	cluster := storetest.StartCluster(t)
	minioSrv := miniotest.Start(t)
	name := minioSrv.NewBucket(t)
	minioSrv.Env(t)
	var logs syncBuffer
	srv := startServer(t, Config{Database: cluster.URL, Media: minioSrv.URL(name, "clipperd"),
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	c := newClient(t, srv, devKey)
	upload := c.uploadFile(video, 1<<20)
	start := time.Now()
	var ids []string
	for range 2 {
		ids = append(ids, c.mustCreate(map[string]any{"videoUrl": upload,
			"curationPref": map[string]any{"range": map[string]any{"startSec": 0, "endSec": 30}, "clipDurations": [][]float64{{5, 12}}}}).ID)
	}
	if away > 0 {
		c.waitFor(ids[0], pipelineTimeout, true, apitypes.StageRender, apitypes.StageUpload, apitypes.StageComplete)
		if bucket {
			minioSrv.Stop()
			time.Sleep(away)
			minioSrv.Restart(t)
		} else {
			cluster.Stop(t)
			time.Sleep(away)
			cluster.Start(t)
		}
	}
	var final []string
	for _, id := range ids {
		final = append(final, string(c.waitFor(id, 2*pipelineTimeout, true, apitypes.StageComplete).Stage))
	}
	took := time.Since(start)
	stats, err := srv.store.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, f := range final {
		counts[f]++
	}
	var summary []string
	for stage, n := range counts {
		summary = append(summary, fmt.Sprintf("%d %s", n, stage))
	}
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "level=ERROR") || strings.Contains(line, "to=STALLED") {
			t.Log(line)
		}
	}
	return outageResult{stalls: strings.Count(logs.String(), "to=STALLED"), errors: strings.Count(logs.String(), "level=ERROR"),
		final: strings.Join(summary, ", "), credits: stats.CreditsUsed, took: took}
}
