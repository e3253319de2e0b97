package store

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
)

func newProject(org string) *Project {
	id := NewID("")
	return &Project{ID: id, OrgID: org, Stage: apitypes.StageQueued, CreatedAt: stamp(time.Now())}
}

func TestReopenKeepsDataAndMigrationsOnce(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, dir := be.open(t)
		if err := s.EnsureKey(ctx, "k1", "org", "user"); err != nil {
			t.Fatal(err)
		}
		p := newProject("org")
		if err := s.CreateProject(ctx, p, Admission{Reserve: 10}); err != nil {
			t.Fatal(err)
		}
		_ = s.Close()
		s2, err := Open(ctx, dir, WithMasterKey(testMasterKey))
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		defer s2.Close()
		if err := s2.EnsureKey(ctx, "k1", "org", "user"); err != nil {
			t.Fatalf("ensure twice: %v", err)
		}
		k, err := s2.LookupKey(ctx, "k1")
		if err != nil || k.OrgID != "org" || k.UserID != "user" {
			t.Fatalf("lookup after reopen: %+v %v", k, err)
		}
		got, err := s2.GetProject(ctx, p.ID)
		if err != nil || got.CreditsCharged != 10 || got.Stage != apitypes.StageQueued {
			t.Fatalf("project after reopen: %+v %v", got, err)
		}
		used, _ := s2.CreditsUsed(ctx, "org")
		if used != 10 {
			t.Fatalf("credits used = %d, want 10", used)
		}
	})
}

func TestCreateProjectEnforcesConcurrentCapAtomically(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok, capped := 0, 0
		for range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := s.CreateProject(ctx, newProject("org"), Admission{MaxConcurrent: 4})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok++
				case errors.Is(err, ErrConcurrentCap):
					capped++
				default:
					t.Errorf("unexpected: %v", err)
				}
			}()
		}
		wg.Wait()
		if ok != 4 || capped != 6 {
			t.Fatalf("admitted %d, capped %d; want 4 and 6", ok, capped)
		}
		// A finished project frees its slot.
		active, _ := s.ProjectsInStages(ctx, apitypes.StageQueued)
		if _, err := s.MutateProject(ctx, active[0].ID, func(p *Project) error { p.Stage = apitypes.StageComplete; return nil }); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateProject(ctx, newProject("org"), Admission{MaxConcurrent: 4}); err != nil {
			t.Fatalf("slot not freed: %v", err)
		}
		// Other orgs are counted apart.
		if err := s.CreateProject(ctx, newProject("other"), Admission{MaxConcurrent: 4}); err != nil {
			t.Fatalf("other org: %v", err)
		}
	})
}

func TestMonthlyCapAndReset(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		now := time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)
		s.SetClock(func() time.Time { return now })
		adm := Admission{MonthlyCredits: 25, Reserve: 10}
		first := newProject("org")
		if err := s.CreateProject(ctx, first, adm); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateProject(ctx, newProject("org"), adm); err != nil {
			t.Fatal(err)
		}
		err := s.CreateProject(ctx, newProject("org"), adm)
		var capErr *quota.MonthlyCapError
		if !errors.As(err, &capErr) {
			t.Fatalf("want MonthlyCapError, got %v", err)
		}
		if want := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC); !capErr.ResetAt.Equal(want) || capErr.Used != 20 {
			t.Fatalf("cap error %+v", capErr)
		}
		if _, err := s.ChargeProjectCredits(ctx, first.ID, 15, 25); err != nil {
			t.Fatalf("charge within cap: %v", err)
		}
		if _, err := s.ChargeProjectCredits(ctx, first.ID, 16, 25); !errors.As(err, &capErr) {
			t.Fatalf("charge past the cap at 25/25: %v", err)
		}
		if used, _ := s.CreditsUsed(ctx, "org"); used != 25 {
			t.Fatalf("used = %d, want 25", used)
		}
		now = now.Add(2 * time.Hour) // December: a new month
		if err := s.CreateProject(ctx, newProject("org"), adm); err != nil {
			t.Fatalf("after reset: %v", err)
		}
	})
}

func TestClipsPagingAndReplace(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		mk := func(n int) []Clip {
			var cs []Clip
			for i := range n {
				id := string(rune('a' + i))
				cs = append(cs, Clip{ID: "p." + id, ProjectID: "p", CurationID: id})
			}
			return cs
		}
		if err := s.ReplaceClips(ctx, "p", "org", mk(5)); err != nil {
			t.Fatal(err)
		}
		page, _ := s.ListClips(ctx, "p", 2, 2)
		if len(page) != 2 || page[0].CurationID != "c" || page[1].CurationID != "d" {
			t.Fatalf("page 2 = %+v", page)
		}
		if err := s.ReplaceClips(ctx, "p", "org", mk(3)); err != nil {
			t.Fatal(err)
		}
		all, _ := s.ListClips(ctx, "p", 0, 100)
		if len(all) != 3 || all[2].CurationID != "c" {
			t.Fatalf("after replace: %+v, want the 3 new clips only", all)
		}
	})
}

func TestUploadsDeliveriesAndKeys(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		u := &Upload{ID: "up1", OrgID: "org", UserID: "u", Key: "/x", Total: -1}
		if err := s.SaveUpload(ctx, u); err != nil {
			t.Fatal(err)
		}
		u.SessionID, u.Received, u.Total, u.Complete = "sess", 100, 100, true
		if err := s.SaveUpload(ctx, u); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetUploadBySession(ctx, "sess")
		if err != nil || !got.Complete || got.Received != 100 {
			t.Fatalf("upload %+v %v", got, err)
		}

		d := &Delivery{ProjectID: "p", Kind: "WEBHOOK", Target: "http://x", Body: "{}"}
		if err := s.EnqueueDelivery(ctx, d, nil); err != nil {
			t.Fatal(err)
		}
		if pending, _ := s.PendingDeliveries(ctx); len(pending) != 1 || pending[0] != d.ID {
			t.Fatalf("pending = %v, want [%d]", pending, d.ID)
		}
		d.Attempts, d.NextAt, d.LastError = 1, time.Now().Add(time.Hour), "500"
		if err := s.SaveDeliveryAttempt(ctx, d, nil); err != nil {
			t.Fatal(err)
		}
		if got, err := s.GetDelivery(ctx, d.ID); err != nil || got.Attempts != 1 || got.LastError != "500" || got.Status != DeliveryPending {
			t.Fatalf("delivery after a failed attempt %+v, %v", got, err)
		}
		d.Status = DeliveryDone
		if err := s.SaveDeliveryAttempt(ctx, d, nil); err != nil {
			t.Fatal(err)
		}
		if pending, _ := s.PendingDeliveries(ctx); len(pending) != 0 {
			t.Fatalf("done delivery still pending: %v", pending)
		}
		if _, err := s.GetDelivery(ctx, d.ID+1); !errors.Is(err, ErrNotFound) {
			t.Fatalf("absent delivery: %v, want ErrNotFound", err)
		}

		first, _ := s.CreateKey(ctx, "org", "u")
		if _, err := s.CreateKey(ctx, "org", "u2"); err != nil {
			t.Fatal(err)
		}
		if k, _ := s.FirstKey(ctx, "org"); k != first {
			t.Fatalf("first key = %q, want %q", k, first)
		}
	})
}

func TestBrandTemplatesDefault(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		all, err := s.BrandTemplates(ctx, "org")
		if err != nil || len(all) != 10 {
			t.Fatalf("presets: %d %v", len(all), err)
		}
		def, _ := s.BrandTemplate(ctx, "org", "")
		if def.TemplateID != DefaultPresetID {
			t.Fatalf("default = %s", def.TemplateID)
		}
		if err := s.SaveBrandTemplate(ctx, "org", apitypes.BrandTemplate{TemplateID: "mine", Name: "Mine", IsDefault: true}); err != nil {
			t.Fatal(err)
		}
		def, _ = s.BrandTemplate(ctx, "org", "")
		if def.TemplateID != "mine" || def.Type != "custom" {
			t.Fatalf("org default = %+v", def)
		}
		if _, err := s.BrandTemplate(ctx, "other", "mine"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("another org's template visible: %v", err)
		}
	})
}

func TestSocialAccounts(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		if _, err := s.ConnectSocialAccount(ctx, "org", apitypes.SocialAccount{Platform: "MYSPACE", ExtUserName: "x"}); err == nil {
			t.Fatal("an unknown platform was accepted")
		}
		yt, err := s.ConnectSocialAccount(ctx, "org", apitypes.SocialAccount{Platform: "YOUTUBE", ExtUserName: "Chan"})
		if err != nil || yt.PostAccountID == "" || yt.ExtUserID == "" {
			t.Fatalf("connect: %+v %v", yt, err)
		}
		if _, err := s.ConnectSocialAccount(ctx, "other", apitypes.SocialAccount{Platform: "TWITTER", ExtUserName: "o"}); err != nil {
			t.Fatal(err)
		}
		list, err := s.SocialAccounts(ctx, "org")
		if err != nil || len(list) != 1 || list[0] != yt {
			t.Fatalf("org accounts = %+v %v", list, err)
		}
	})
}

// TestMigrationsHavePostgresCounterparts: a PostgreSQL database starts at
// postgresBase, so each later migration carries its PostgreSQL statements.
func TestMigrationsHavePostgresCounterparts(t *testing.T) {
	t.Parallel()
	if postgresBase > len(migrations) {
		t.Fatalf("postgresBase %d is past the %d migrations", postgresBase, len(migrations))
	}
	for i, m := range migrations[postgresBase:] {
		if m.sql != "" && m.postgres == "" {
			t.Errorf("migration %d has SQLite statements and no PostgreSQL counterpart (migration.postgres)", postgresBase+i+1)
		}
	}
}

// TestBothEnginesReachTheSameVersion: the PostgreSQL schema records the
// versions SQLite's migrations reach, so later migrations apply to both.
func TestBothEnginesReachTheSameVersion(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		s, _ := be.open(t)
		var n, highest int
		if err := s.db.QueryRowContext(context.Background(), `SELECT COUNT(*), MAX(version) FROM schema_migrations`).Scan(&n, &highest); err != nil {
			t.Fatal(err)
		}
		if n != len(migrations) || highest != len(migrations) {
			t.Errorf("%d versions recorded up to %d; want %d", n, highest, len(migrations))
		}
	})
}
