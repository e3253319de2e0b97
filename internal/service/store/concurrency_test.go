package store

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
)

// The rules below held on SQLite because the store had one connection; on
// PostgreSQL the store has a pool, so each is run from many goroutines at
// once on both engines.

// parallel runs fn n times at once and waits for all of them.
func parallel(n int, fn func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { fn(i) })
	}
	wg.Wait()
}

func TestParallelTwitterPostsNeverPassTheCreditCap(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _, _, twitter := publishingStore(t, be)
		const monthlyCap = 5
		var made, capped atomic.Int32
		parallel(16, func(int) {
			_, err := s.CreatePost(ctx, "org", content(twitter), PostLimits{MonthlyCap: monthlyCap}, nil)
			var capErr *quota.MonthlyCapError
			switch {
			case err == nil:
				made.Add(1)
			case errors.As(err, &capErr):
				capped.Add(1)
			default:
				t.Error(err)
			}
		})
		if made.Load() != monthlyCap || capped.Load() != 16-monthlyCap {
			t.Errorf("made %d posts, capped %d; want %d and %d", made.Load(), capped.Load(), monthlyCap, 16-monthlyCap)
		}
		if used, _ := s.CreditsUsed(ctx, "org"); used != monthlyCap {
			t.Errorf("credits used = %d, want %d", used, monthlyCap)
		}
	})
}

func TestParallelCollectionCreatesKeepTheQuota(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		var made atomic.Int32
		parallel(12, func(int) {
			_, err := s.CreateCollection(ctx, "org", "c", 3)
			switch {
			case err == nil:
				made.Add(1)
			case !errors.Is(err, ErrCollectionQuota):
				t.Error(err)
			}
		})
		if _, total, err := s.ListCollections(ctx, "org", "", 0, 100); err != nil || made.Load() != 3 || total != 3 {
			t.Errorf("made %d collections, %d stored (%v); want 3", made.Load(), total, err)
		}
	})
}

func TestParallelAddsNumberCollectionContentsApart(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		ids := saveClips(t, s, "org", "c1", "c2", "c3", "c4", "c5", "c6")
		col, err := s.CreateCollection(ctx, "org", "all", 0)
		if err != nil {
			t.Fatal(err)
		}
		parallel(len(ids), func(i int) {
			if err := s.AddCollectionContent(ctx, "org", col.CollectionID, ids[i]); err != nil {
				t.Error(err)
			}
		})
		var distinct int
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(DISTINCT seq) FROM collection_contents WHERE collection_id = ?`,
			col.CollectionID).Scan(&distinct); err != nil || distinct != len(ids) {
			t.Errorf("%d distinct positions for %d contents (%v)", distinct, len(ids), err)
		}
	})
}

func TestParallelMutationsOfAProjectAreNotLost(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		p := newProject("org")
		if err := s.CreateProject(ctx, p, Admission{}); err != nil {
			t.Fatal(err)
		}
		// Each mutation reads the count and writes it plus one: a lost
		// update would leave fewer than 20.
		parallel(20, func(int) {
			if _, err := s.MutateProject(ctx, p.ID, func(p *Project) error { p.FailureStalls++; return nil }); err != nil {
				t.Error(err)
			}
		})
		got, err := s.GetProject(ctx, p.ID)
		if err != nil || got.FailureStalls != 20 {
			t.Errorf("failure stalls after 20 parallel increments = %d (%v)", got.FailureStalls, err)
		}
	})
}

func TestParallelChargesOfAProjectChargeOnce(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		p := newProject("org")
		if err := s.CreateProject(ctx, p, Admission{Reserve: 2}); err != nil {
			t.Fatal(err)
		}
		// Two workers that both run IMPORT raise the charge to the same
		// total: the difference is taken once.
		parallel(8, func(int) {
			if _, err := s.ChargeProjectCredits(ctx, p.ID, 7, 0); err != nil {
				t.Error(err)
			}
		})
		if used, _ := s.CreditsUsed(ctx, "org"); used != 7 {
			t.Errorf("credits used = %d, want 7", used)
		}
	})
}

func TestParallelRefundsRefundOnce(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		for range 2 {
			if err := s.CreateProject(ctx, newProject("org"), Admission{Reserve: 3}); err != nil {
				t.Fatal(err)
			}
		}
		ps, err := s.ProjectsInStages(ctx, apitypes.StageQueued)
		if err != nil || len(ps) != 2 {
			t.Fatalf("projects %d %v", len(ps), err)
		}
		parallel(8, func(int) {
			_, _, err := s.MutateProjectWithEffects(ctx, ps[0].ID, func(*Project) (Effects, error) { return Effects{Refund: true}, nil })
			if err != nil {
				t.Error(err)
			}
		})
		if used, _ := s.CreditsUsed(ctx, "org"); used != 3 {
			t.Errorf("credits used = %d, want 3 (the other project's)", used)
		}
	})
}

func TestParallelPublishesRecordOne(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, now, youtube, _ := publishingStore(t, be)
		p, err := s.CreatePost(ctx, "org", content(youtube), PostLimits{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var won atomic.Int32
		parallel(8, func(int) {
			err := s.MarkPostPublished(ctx, p.ID, *now, "dir", 0, nil)
			switch {
			case err == nil:
				won.Add(1)
			case !errors.Is(err, ErrNotPending):
				t.Error(err)
			}
		})
		if won.Load() != 1 {
			t.Errorf("%d publishes recorded; want 1", won.Load())
		}
	})
}

func TestParallelKeysOfAnOrgNumberApart(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		parallel(8, func(int) {
			if _, err := s.CreateKey(ctx, "org", "user"); err != nil {
				t.Error(err)
			}
		})
		var n, distinct int
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*), COUNT(DISTINCT seq) FROM api_keys WHERE org_id = ?`, "org").Scan(&n, &distinct); err != nil || n != 8 || distinct != 8 {
			t.Errorf("%d keys with %d distinct numbers (%v); want 8 and 8", n, distinct, err)
		}
	})
}
