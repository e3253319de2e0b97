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
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		adm := Admission{MaxConcurrent: 2}
		a, b := newProject("org"), newProject("org")
		for _, p := range []*Project{a, b} {
			if err := s.CreateProject(ctx, p, adm); err != nil {
				t.Fatal(err)
			}
		}
		stall := func(id string, retryAt time.Time) {
			t.Helper()
			if _, err := s.MutateProject(ctx, id, func(p *Project) error {
				p.Stage, p.RetryAt = apitypes.StageStalled, retryAt
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		stall(a.ID, s.Now().Add(time.Minute))
		if err := s.CreateProject(ctx, newProject("org"), adm); !errors.Is(err, ErrConcurrentCap) {
			t.Fatalf("create while a project waits for its retry: %v, want ErrConcurrentCap", err)
		}
		stall(a.ID, time.Time{}) // retries used up: STALLED for good
		if err := s.CreateProject(ctx, newProject("org"), adm); err != nil {
			t.Fatalf("create after a permanent stall: %v", err)
		}
	})
}

func TestRefundOnceWithEffects(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
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
	})
}

// An effect that fails leaves nothing written: no refund, no delivery.
func TestEffectsRollBackTogether(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
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
	})
}

// Every field of the record survives a write and a read: each has its
// column, and the preferences their document.
func TestProjectRecordRoundTrips(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		str := func(v string) *string { return &v }
		two := int64(2)
		yes := true
		p := &Project{
			ID: "prj_round", OrgID: "org", UserID: "user", Stage: apitypes.StageStalled, Visibility: apitypes.VisibilityPublic,
			SourcePlatform: apitypes.PlatformUploaded, SourceID: "up_1", VideoURL: "up_1", Model: str(apitypes.ModelClipBasic),
			BrandTemplateID: str("preset-fancy-Simple"), ProductTier: ProductTier, StorageSize: 1234, StorageStatus: StorageTemp,
			StorageExpireAt: parseTimestamp("2026-12-23T00:00:00.000Z"), Error: str("RENDER failed"), StallCount: &two, FailureStalls: 1,
			RetryAt: parseTimestamp("2026-11-23T00:05:00.000Z"), RefundStatus: str(RefundStatusRefunded), SourceKey: "/data/media/prj_round/source.mp4",
			SourceDurationSec: 61.5, CreatedAt: parseTimestamp("2026-11-23T00:00:00.000Z"), UpdatedAt: parseTimestamp("2026-11-23T00:00:00.000Z"),
			CurationPref:      &apitypes.CurationPref{Model: apitypes.ModelClipBasic, ClipDurations: [][2]float64{{10, 30}}},
			RenderPref:        &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectPortrait, EnableCaption: &yes},
			ImportPref:        &apitypes.ImportPref{SourceLang: "en"},
			UploadedVideoAttr: &apitypes.UploadedVideoAttr{Title: "Talk"},
			ConclusionActions: []apitypes.ConclusionAction{{Type: apitypes.ActionEmail, Email: "a@example.com"}},
		}
		if err := s.CreateProject(ctx, p, Admission{Reserve: 10}); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetProject(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, p) {
			t.Errorf("read back\n%+v\nwant\n%+v", got, p)
		}
		api := got.API()
		if api.ProjectID != p.ID || *api.SourceURI != "up_1" || api.Stage != apitypes.StageStalled || api.Labels == nil ||
			len(api.Permissions) == 0 || api.CurationPref.ClipDurations[0][1] != 30 {
			t.Errorf("API() = %+v", api)
		}
	})
}
