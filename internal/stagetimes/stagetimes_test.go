package stagetimes

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// The log is written by log/slog's text handler with the pipeline's own
// attributes, so the test reads what clipperd writes.
func TestRead(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	stage := func(project string, from, to apitypes.Stage, took time.Duration, more ...any) {
		log.Info("project stage", append([]any{"project", project, "from", from, "to", to, "took", took}, more...)...)
	}
	stage("prj_a", apitypes.StageQueued, apitypes.StageImport, 1500*time.Millisecond)
	stage("prj_a", apitypes.StageImport, apitypes.StageCurate, 2*time.Second)
	log.Info("transcript", "project", "prj_a", "words", 12, "took", time.Hour) // not a stage line
	// A run that stalls in CURATE (its error mentions a took= of its own),
	// is queued again by the watchdog (no time), and runs CURATE again.
	log.Warn("project stage", "project", "prj_a", "from", apitypes.StageCurate, "to", apitypes.StageStalled, "took", 3*time.Second,
		"error", errors.New("analyse the video: ffmpeg took=9h and died"))
	log.Info("project stage", "project", "prj_a", "from", apitypes.StageStalled, "to", apitypes.StageQueued, "reason", "retry")
	stage("prj_a", apitypes.StageCurate, apitypes.StageRefine, 62500*time.Millisecond)
	stage("prj_a", apitypes.StageUpload, apitypes.StageComplete, 250*time.Millisecond, "clips", 7)
	stage("prj_b", apitypes.StageQueued, apitypes.StageImport, time.Second)

	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Times{
		"prj_a": {apitypes.StageQueued: 1500 * time.Millisecond, apitypes.StageImport: 2 * time.Second,
			apitypes.StageCurate: 65500 * time.Millisecond, apitypes.StageUpload: 250 * time.Millisecond},
		"prj_b": {apitypes.StageQueued: time.Second},
	}
	if len(got) != len(want) {
		t.Fatalf("projects %v, want %v", got, want)
	}
	for id, w := range want {
		if len(got[id]) != len(w) {
			t.Errorf("%s: %v, want %v", id, got[id], w)
		}
		for stage, d := range w {
			if got[id][stage] != d {
				t.Errorf("%s %s: %s, want %s", id, stage, got[id][stage], d)
			}
		}
	}
}

func TestReadBadDuration(t *testing.T) {
	_, err := Read(strings.NewReader(`level=INFO msg="project stage" project=prj_a from=CURATE to=REFINE took=soon` + "\n"))
	if err == nil || !strings.Contains(err.Error(), "took=soon") {
		t.Errorf("err %v, want one naming took=soon", err)
	}
}

func TestSumAndMarkdown(t *testing.T) {
	node1 := map[string]Times{
		"prj_a": {apitypes.StageQueued: time.Second, apitypes.StageCurate: 10 * time.Second},
		"prj_x": {apitypes.StageCurate: time.Hour}, // not asked for
	}
	node2 := map[string]Times{"prj_a": {apitypes.StageRender: 20 * time.Second, "RENDER_PIECES": 5 * time.Second}}
	sum := Sum([]string{"prj_a", "prj_missing"}, node1, node2)
	other := Times{apitypes.StageCurate: 4 * time.Second}

	got := Markdown([]string{"1 worker", "2 workers"}, []Times{sum, other})
	want := `| stage | 1 worker | 2 workers |
|---|---|---|
| QUEUED | 1.0 s | 0.0 s |
| IMPORT | 0.0 s | 0.0 s |
| CURATE | 10.0 s | 4.0 s |
| REFINE | 0.0 s | 0.0 s |
| RENDER | 20.0 s | 0.0 s |
| UPLOAD | 0.0 s | 0.0 s |
| RENDER_PIECES | 5.0 s | 0.0 s |
| total | 36.0 s | 4.0 s |
`
	if got != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", got, want)
	}
}
