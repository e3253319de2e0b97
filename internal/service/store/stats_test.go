package store

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// Stats sums every org: projects per stage, this month's credits (not an
// earlier month's), and the bytes StorageUsed counts for each org.
func TestStatsSumsEveryOrg(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
		s.SetClock(func() time.Time { return now })

		used := addUpload(t, s, "org", 1000, true, now)
		addUpload(t, s, "org", 300, false, now)
		addUpload(t, s, "other", 5000, true, now)
		addProject(t, s, apitypes.StageComplete, 1700, used.ID, now)
		addProject(t, s, apitypes.StageImport, 0, "", now)
		for _, org := range []string{"org", "other"} {
			if err := s.CreateProject(ctx, newProject(org), Admission{Reserve: 10}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.db.ExecContext(ctx, `INSERT INTO credits(org_id, month, used) VALUES ('org', '2026-02', 99)`); err != nil {
			t.Fatal(err)
		}

		got, err := s.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wantStages := map[apitypes.Stage]int64{apitypes.StageComplete: 1, apitypes.StageImport: 1, apitypes.StageQueued: 2}
		if !maps.Equal(got.ProjectsByStage, wantStages) {
			t.Errorf("ProjectsByStage = %v, want %v", got.ProjectsByStage, wantStages)
		}
		if got.CreditsUsed != 20 {
			t.Errorf("CreditsUsed = %d, want 20 (this month's, both orgs)", got.CreditsUsed)
		}
		if got.UploadBytes != 300+5000 || got.ProjectBytes != 1700 {
			t.Errorf("UploadBytes, ProjectBytes = %d, %d; want 5300, 1700", got.UploadBytes, got.ProjectBytes)
		}
		var perOrg int64
		for _, org := range []string{"org", "other"} {
			n, err := s.StorageUsed(ctx, org)
			if err != nil {
				t.Fatal(err)
			}
			perOrg += n
		}
		if got.UploadBytes+got.ProjectBytes != perOrg {
			t.Errorf("Stats' bytes %d, the orgs' StorageUsed %d: they count differently", got.UploadBytes+got.ProjectBytes, perOrg)
		}
	})
}
