package pipeline

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// stagesLeft records what Config.OnStageLeft reports.
type stagesLeft struct {
	mu     sync.Mutex
	stages []apitypes.Stage
	took   []time.Duration
}

func (s *stagesLeft) left(stage apitypes.Stage, took time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stages, s.took = append(s.stages, stage), append(s.took, took)
}

func (s *stagesLeft) get() ([]apitypes.Stage, []time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.stages), slices.Clone(s.took)
}

// TestStageLeftReportsEveryStageOfARun: a run that completes reports each
// stage it left once, in order, from the wait in QUEUED to UPLOAD; a run that
// stalls reports the stage it failed in.
func TestStageLeftReportsEveryStageOfARun(t *testing.T) {
	t.Parallel()
	src := testVideo(t)
	e := newEnv(t)
	rec := &stagesLeft{}
	e.cfg.OnStageLeft = rec.left
	e.runner()

	id := e.create(apitypes.CreateProjectRequest{
		VideoURL:     e.upload(src),
		CurationPref: &apitypes.CurationPref{SkipCurate: yes(), Range: &apitypes.Range{StartSec: f64(2), EndSec: f64(6)}},
	})
	if p := e.waitDone(id); p.Stage != apitypes.StageComplete {
		t.Fatalf("stage = %s, error %v", p.Stage, deref(p.Error))
	}
	stages, took := rec.get()
	want := []apitypes.Stage{apitypes.StageQueued, apitypes.StageImport, apitypes.StageCurate, apitypes.StageRefine, apitypes.StageRender, apitypes.StageUpload}
	if !slices.Equal(stages, want) {
		t.Fatalf("stages left %v, want %v", stages, want)
	}
	if i := slices.IndexFunc(took, func(d time.Duration) bool { return d < 0 }); i >= 0 {
		t.Errorf("time in %s is %s, want a duration", stages[i], took[i])
	}

	txt := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(txt, []byte(strings.Repeat("not a video\n", 200)), 0o644); err != nil {
		t.Fatal(err)
	}
	id = e.create(apitypes.CreateProjectRequest{VideoURL: e.upload(txt)})
	if p := e.waitDone(id); p.Stage != apitypes.StageStalled {
		t.Fatalf("text upload: stage = %s, want STALLED", p.Stage)
	}
	stages, _ = rec.get()
	if got := stages[len(want):]; !slices.Equal(got, []apitypes.Stage{apitypes.StageQueued, apitypes.StageImport}) {
		t.Errorf("the stalled run left %v, want [QUEUED IMPORT]", got)
	}
}
