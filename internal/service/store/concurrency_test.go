package store

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// copyOf is a PostLimits.CopySize that sizes every clip's copy at n bytes.
func copyOf(n int64) func(context.Context, PostContent) (int64, error) {
	return func(context.Context, PostContent) (int64, error) { return n, nil }
}

// Posts whose copies hold bytes reserve them when made, under the org's
// lock: however many come at once, the storage quota is never passed. What
// a post holds follows it: what its copy added once published (nothing
// when it shares the clip's bytes), nothing once failed or expired; the
// quota, StorageUsed and Stats count the same.
func TestParallelPostsNeverPassTheStorageQuota(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, now, youtube, twitter := publishingStore(t, be) // youtube publishes to the "dir" destination, twitter to a webhook
		limits := PostLimits{StorageQuota: 1000, CopySize: copyOf(300)}
		var made []*Post
		var mu sync.Mutex
		var refused atomic.Int32
		parallel(16, func(int) {
			p, err := s.CreatePost(ctx, "org", content(youtube), limits, nil)
			var sq *quota.StorageQuotaError
			switch {
			case err == nil:
				mu.Lock()
				made = append(made, p)
				mu.Unlock()
			case errors.As(err, &sq):
				refused.Add(1)
			default:
				t.Error(err)
			}
		})
		if len(made) != 3 || refused.Load() != 13 {
			t.Fatalf("made %d posts, refused %d; want 3 within 1000 bytes and 13", len(made), refused.Load())
		}
		wantUsed := func(what string, want int64) {
			t.Helper()
			used, err := s.StorageUsed(ctx, "org")
			st, serr := s.Stats(ctx)
			if err != nil || serr != nil || used != want || st.PostBytes != want {
				t.Errorf("%s: StorageUsed %d, Stats.PostBytes %d (%v %v); want %d", what, used, st.PostBytes, err, serr, want)
			}
		}
		wantUsed("3 pending posts", 900)
		if err := s.MarkPostPublished(ctx, made[0].ID, *now, "published/x", 0, nil); err != nil {
			t.Fatal(err)
		}
		wantUsed("one published sharing the clip's bytes", 600)
		failed := made[1]
		failed.Attempts, failed.Status, failed.LastError = 1, PostFailed, "gave up"
		if err := s.SavePostAttempt(ctx, failed, nil); err != nil {
			t.Fatal(err)
		}
		wantUsed("one failed", 300)
		if posts, err := s.ProjectPosts(ctx, "prj"); err != nil || len(posts) != 3 {
			t.Errorf("ProjectPosts = %d, %v; want the 3", len(posts), err)
		}
		if _, err := s.ExpireProjectMedia(ctx, "prj"); err != nil {
			t.Fatal(err)
		}
		wantUsed("the project's media expired", 0)
		// A post to a webhook holds nothing here: made past any quota.
		if _, err := s.CreatePost(ctx, "org", content(twitter), PostLimits{StorageQuota: 1, CopySize: copyOf(300)}, nil); err != nil {
			t.Errorf("a webhook post under a 1-byte quota: %v", err)
		}
	})
}

// A schedule that fires when its copy would pass the storage quota makes a
// failed post saying why, charged nothing.
func TestScheduleFiredPastTheStorageQuotaMakesAFailedPost(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, now, _, _ := publishingStore(t, be)
		tw, err := s.ConnectSocialAccountTo(ctx, "org", apitypes.SocialAccount{Platform: "TWITTER", ExtUserName: "Dir"}, PublishToDir)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := s.CreateSchedule(ctx, "org", content(tw.PostAccountID), now.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		*now = now.Add(time.Minute)
		p, err := s.FireSchedule(ctx, sc.ID, PostLimits{MonthlyCap: 10, StorageQuota: 100, CopySize: copyOf(300)}, nil)
		if err != nil || p == nil || p.Status != PostFailed || p.CreditsCharged != 0 || p.StorageSize != 0 ||
			!strings.Contains(p.LastError, "storage quota") {
			t.Fatalf("fired past the storage quota: %+v %v, want a failed post naming the quota", p, err)
		}
		if used, _ := s.CreditsUsed(ctx, "org"); used != 0 {
			t.Errorf("credits used = %d, want 0", used)
		}
		if used, _ := s.StorageUsed(ctx, "org"); used != 0 {
			t.Errorf("storage used = %d, want 0", used)
		}
	})
}
