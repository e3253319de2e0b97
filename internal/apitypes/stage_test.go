package apitypes

import (
	"slices"
	"testing"
)

func TestStagePredicates(t *testing.T) {
	for _, tc := range []struct {
		stage                                     Stage
		known, terminal, inFlight, waiting, works bool
	}{
		{StagePending, true, false, true, true, false},
		{StageQueued, true, false, true, true, false},
		{StageImport, true, false, true, false, true},
		{StageCurate, true, false, true, false, true},
		{StageRefine, true, false, true, false, true},
		{StageRender, true, false, true, false, true},
		{StageUpload, true, false, true, false, true},
		{StageComplete, true, true, false, false, false},
		{StageStalled, true, true, false, false, false},
		{"", false, false, false, false, false},
		{"DONE", false, false, false, false, false},
	} {
		got := [5]bool{tc.stage.Known(), tc.stage.Terminal(), tc.stage.InFlight(), tc.stage.Waiting(), tc.stage.Processing()}
		want := [5]bool{tc.known, tc.terminal, tc.inFlight, tc.waiting, tc.works}
		if got != want {
			t.Errorf("%q: Known, Terminal, InFlight, Waiting, Processing = %v, want %v", tc.stage, got, want)
		}
	}
}

func TestStagesWhereKeepsPipelineOrder(t *testing.T) {
	got := StagesWhere(Stage.Processing)
	want := []Stage{StageImport, StageCurate, StageRefine, StageRender, StageUpload}
	if !slices.Equal(got, want) {
		t.Fatalf("StagesWhere(Processing) = %v, want %v", got, want)
	}
	if all := Stages(); len(all) != 9 || all[0] != StagePending || all[8] != StageStalled {
		t.Fatalf("Stages() = %v", all)
	}
}
