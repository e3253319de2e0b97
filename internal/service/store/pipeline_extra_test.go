package store

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// A STALLED project with a retry planned goes back to QUEUED by itself, so
// it keeps its place under the concurrent cap; a permanent stall frees it.
func TestStalledWithRetryCountsAgainstConcurrentCap(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	adm := Admission{MaxConcurrent: 2}
	a, b := newProject("org"), newProject("org")
	for _, p := range []*Project{a, b} {
		if err := s.CreateProject(ctx, p, adm); err != nil {
			t.Fatal(err)
		}
	}
	stall := func(id, retryAt string) {
		t.Helper()
		if _, err := s.MutateProject(ctx, id, func(p *Project) error {
			p.Stage, p.RetryAt = apitypes.StageStalled, retryAt
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	stall(a.ID, Timestamp(s.Now().Add(time.Minute)))
	if err := s.CreateProject(ctx, newProject("org"), adm); !errors.Is(err, ErrConcurrentCap) {
		t.Fatalf("create while a project waits for its retry: %v, want ErrConcurrentCap", err)
	}
	stall(a.ID, "") // retries used up: STALLED for good
	if err := s.CreateProject(ctx, newProject("org"), adm); err != nil {
		t.Fatalf("create after a permanent stall: %v", err)
	}
}

func TestRefundOnceWithEffects(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	other := newProject("org")
	p := newProject("org")
	for _, x := range []*Project{other, p} {
		if err := s.CreateProject(ctx, x, Admission{Reserve: 10}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.ChargeProjectCredits(ctx, p.ID, 25, 0); err != nil {
		t.Fatal(err)
	}
	stallForGood := func() (*Project, []Delivery) {
		t.Helper()
		got, queued, err := s.MutateProjectWithEffects(ctx, p.ID, func(p *Project) (Effects, error) {
			p.Stage = apitypes.StageStalled
			return Effects{Refund: true, Deliveries: []Delivery{{Kind: apitypes.ActionWebhook, Target: "http://h", Body: "{}"}}}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got, queued
	}
	got, queued := stallForGood()
	if got.RefundStatus == nil || *got.RefundStatus != RefundStatusRefunded || got.CreditsCharged != 0 {
		t.Fatalf("refundStatus %v creditsCharged %d, want REFUNDED and 0", got.RefundStatus, got.CreditsCharged)
	}
	if used, _ := s.CreditsUsed(ctx, "org"); used != 10 {
		t.Fatalf("used after refund = %d, want 10 (the other project's reserve)", used)
	}
	if len(queued) != 1 || queued[0].ID == 0 || queued[0].ProjectID != p.ID || queued[0].Status != DeliveryPending {
		t.Fatalf("queued %+v", queued)
	}
	stallForGood() // asked again: nothing more is given back
	if used, _ := s.CreditsUsed(ctx, "org"); used != 10 {
		t.Fatalf("used after a second refund = %d, want still 10", used)
	}
	if ds, _ := s.ProjectDeliveries(ctx, p.ID); len(ds) != 2 {
		t.Fatalf("deliveries %d, want 2", len(ds))
	}
	stored, _ := s.GetProject(ctx, p.ID)
	if stored.RefundStatus == nil || *stored.RefundStatus != RefundStatusRefunded {
		t.Fatalf("stored refundStatus %v", stored.RefundStatus)
	}
}

// An effect that fails leaves nothing written: no refund, no delivery.
func TestEffectsRollBackTogether(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	p := newProject("org")
	if err := s.CreateProject(ctx, p, Admission{Reserve: 10}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	_, _, err := s.MutateProjectWithEffects(ctx, p.ID, func(p *Project) (Effects, error) {
		p.Stage = apitypes.StageStalled
		return Effects{Refund: true}, boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	got, _ := s.GetProject(ctx, p.ID)
	if used, _ := s.CreditsUsed(ctx, "org"); used != 10 || got.Stage != apitypes.StageQueued || got.RefundStatus != nil {
		t.Fatalf("after a failed change: used %d stage %s refund %v", used, got.Stage, got.RefundStatus)
	}
}

// The create body is kept once: the project echoes the preferences, so the
// stored request holds only the videoUrl.
func TestCreateProjectKeepsOnlyTheVideoURLOfTheRequest(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	p := newProject("org")
	cp := &apitypes.CurationPref{Model: apitypes.ModelClipBasic}
	p.CurationPref = cp
	p.Request = apitypes.CreateProjectRequest{VideoURL: "up_1", BrandTemplateID: "t", CurationPref: cp,
		ConclusionActions: []apitypes.ConclusionAction{{Type: apitypes.ActionEmail, Email: "a@example.com"}}}
	if err := s.CreateProject(ctx, p, Admission{}); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetProject(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := (apitypes.CreateProjectRequest{VideoURL: "up_1"}); !reflect.DeepEqual(got.Request, want) {
		t.Errorf("stored request %+v, want only the videoUrl", got.Request)
	}
	if got.CurationPref == nil || got.CurationPref.Model != apitypes.ModelClipBasic {
		t.Errorf("echoed curationPref %+v lost", got.CurationPref)
	}
}
