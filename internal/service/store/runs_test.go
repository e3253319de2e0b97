package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// A run's lease is renewed only while the project carries the run's token
// and is in a processing stage; it is listed as ended once it passed, and
// the clips of a stale run are refused.
func TestRunLeaseAndFence(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		ctx := context.Background()
		running := &Project{ID: "p-run", OrgID: "org", Stage: apitypes.StageQueued}
		queued := &Project{ID: "p-queued", OrgID: "org", Stage: apitypes.StageQueued}
		for _, p := range []*Project{running, queued} {
			if err := s.CreateProject(ctx, p, Admission{}); err != nil {
				t.Fatal(err)
			}
		}
		now := time.Now()
		if _, err := s.MutateProject(ctx, running.ID, func(p *Project) error {
			p.Stage, p.RunToken, p.LeaseUntil = apitypes.StageRender, 3, now.Add(time.Minute)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if held, err := s.RenewLease(ctx, running.ID, 3, now.Add(2*time.Minute)); err != nil || !held {
			t.Errorf("RenewLease of the holding run = %v, %v; want true", held, err)
		}
		for _, c := range []struct {
			id  string
			run int64
		}{{running.ID, 2}, {queued.ID, 0}, {"p-none", 0}} {
			if held, err := s.RenewLease(ctx, c.id, c.run, now.Add(time.Hour)); err != nil || held {
				t.Errorf("RenewLease(%s, run %d) = %v, %v; want false", c.id, c.run, held, err)
			}
		}
		if p, _ := s.GetProject(ctx, running.ID); !p.LeaseUntil.Equal(stamp(now.Add(2 * time.Minute))) {
			t.Errorf("lease until %v, want the renewal's %v", p.LeaseUntil, stamp(now.Add(2*time.Minute)))
		}
		if ids, err := s.ExpiredLeases(ctx, now.Add(time.Minute)); err != nil || len(ids) != 0 {
			t.Errorf("ExpiredLeases within the lease = %v, %v; want none", ids, err)
		}
		if ids, err := s.ExpiredLeases(ctx, now.Add(3*time.Minute)); err != nil || len(ids) != 1 || ids[0] != running.ID {
			t.Errorf("ExpiredLeases after the lease = %v, %v; want [%s]", ids, err, running.ID)
		}
		clips := []Clip{{ID: running.ID + ".c01", CurationID: "c01"}}
		if err := s.ReplaceRunClips(ctx, running.ID, "org", 2, clips); !errors.Is(err, ErrStaleRun) {
			t.Errorf("clips of a stale run: %v, want ErrStaleRun", err)
		}
		if err := s.ReplaceRunClips(ctx, running.ID, "org", 3, clips); err != nil {
			t.Fatal(err)
		}
		if got, err := s.ListClips(ctx, running.ID, 0, 10); err != nil || len(got) != 1 {
			t.Errorf("clips %v, %v; want the holding run's one", got, err)
		}
	})
}

// The hook of CreateProjectThen and of Effects.Then runs in the write's
// transaction: when it fails, nothing is written.
func TestProjectHooksShareTheTransaction(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		ctx := context.Background()
		failing := func(context.Context, *sql.Tx) error { return errors.New("no job") }
		if err := s.CreateProjectThen(ctx, &Project{ID: "p1", OrgID: "org", Stage: apitypes.StageQueued}, Admission{}, failing); err == nil {
			t.Fatal("a create whose hook failed succeeded")
		}
		if _, err := s.GetProject(ctx, "p1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("the project of a failed hook was stored: %v", err)
		}
		ran := false
		if err := s.CreateProjectThen(ctx, &Project{ID: "p1", OrgID: "org", Stage: apitypes.StageQueued}, Admission{},
			func(context.Context, *sql.Tx) error { ran = true; return nil }); err != nil || !ran {
			t.Fatalf("create: %v, hook ran %v", err, ran)
		}
		_, _, err := s.MutateProjectWithEffects(ctx, "p1", func(p *Project) (Effects, error) {
			p.RunToken++
			return Effects{Then: failing}, nil
		})
		if p, _ := s.GetProject(ctx, "p1"); err == nil || p.RunToken != 0 {
			t.Errorf("a change whose hook failed: %v, token %d; want an error and token 0", err, p.RunToken)
		}
	})
}

// Two runs of one project charging its credits at once (a stale run and
// the one that took over) charge them once.
func TestParallelChargesOfOneProjectChargeOnce(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		ctx := context.Background()
		if err := s.CreateProject(ctx, &Project{ID: "p1", OrgID: "org", Stage: apitypes.StageImport}, Admission{Reserve: 10}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.ChargeProjectCredits(ctx, "p1", 25, 0)
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		used, err := s.CreditsUsed(ctx, "org")
		p, _ := s.GetProject(ctx, "p1")
		if err != nil || used != 25 || p.CreditsCharged != 25 {
			t.Errorf("after 4 parallel charges to 25: %d used (%v), %d on the project; want 25 and 25", used, err, p.CreditsCharged)
		}
	})
}

// PostgreSQL lends its clock to leases, and the interruptions count is
// stored with the project; SQLite has no clock to share (ok false).
func TestDatabaseTimeAndInterruptions(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		ctx := context.Background()
		before := time.Now()
		now, ok, err := s.DatabaseTime(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := b.Name == EnginePostgres; ok != want {
			t.Fatalf("DatabaseTime ok = %v on %s, want %v", ok, b.Name, want)
		}
		// The server is this machine: its clock is ours.
		if ok && (now.Before(before.Add(-time.Second)) || now.After(time.Now().Add(time.Second)) || now.Location() != time.UTC) {
			t.Errorf("DatabaseTime = %v, want about %v in UTC", now, before)
		}
		p := &Project{ID: "p-int", OrgID: "org", Stage: apitypes.StageQueued}
		if err := s.CreateProject(ctx, p, Admission{}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.MutateProject(ctx, p.ID, func(p *Project) error { p.Interruptions = 3; return nil }); err != nil {
			t.Fatal(err)
		}
		if got, err := s.GetProject(ctx, p.ID); err != nil || got.Interruptions != 3 {
			t.Errorf("interruptions read back %v (%v), want 3", got, err)
		}
	})
}
