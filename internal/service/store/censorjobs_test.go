package store

import (
	"errors"
	"slices"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

func TestCensorJobLife(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		s, _ := be.open(t)
		ctx := t.Context()
		a := &CensorJob{OrgID: "org", ProjectID: "p1", ClipID: "c01", Beep: true}
		b := &CensorJob{OrgID: "org", ProjectID: "p1", ClipID: "c02"}
		for _, j := range []*CensorJob{a, b} {
			if err := s.CreateCensorJob(ctx, j, nil); err != nil {
				t.Fatal(err)
			}
		}
		if ids, err := s.UnfinishedCensorJobs(ctx); err != nil || !slices.Equal(ids, []string{a.ID, b.ID}) {
			t.Fatalf("unfinished = %v, %v; want both", ids, err)
		}
		if ok, err := s.StartCensorJob(ctx, a.ID); err != nil || !ok {
			t.Fatalf("start = %v, %v", ok, err)
		}
		got, err := s.CensorJob(ctx, a.ID)
		if err != nil || got.Status != apitypes.CensorProcessing || !got.Beep || got.API().Error != nil {
			t.Fatalf("job %+v, %v; want PROCESSING with beep, no error", got, err)
		}
		got.Status, got.Words = apitypes.CensorConcluded, 2
		if err := s.FinishCensorJob(ctx, got, nil); err != nil {
			t.Fatal(err)
		}
		b.Status, b.Error = apitypes.CensorFailed, "no such clip"
		if err := s.FinishCensorJob(ctx, b, nil); err != nil {
			t.Fatal(err)
		}
		if ok, _ := s.StartCensorJob(ctx, a.ID); ok {
			t.Error("a CONCLUDED job started again")
		}
		if ids, _ := s.UnfinishedCensorJobs(ctx); len(ids) != 0 {
			t.Errorf("unfinished = %v, want none", ids)
		}
		failed, _ := s.CensorJob(ctx, b.ID)
		if api := failed.API(); api.Status != apitypes.CensorFailed || api.Error == nil || *api.Error != "no such clip" {
			t.Errorf("failed job answers %+v", api)
		}
		if _, err := s.CensorJob(ctx, "cj_missing"); !errors.Is(err, ErrNotFound) {
			t.Errorf("missing job: %v", err)
		}
	})
}
