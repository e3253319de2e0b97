package store_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest/stores"
)

// t0 is the tests' injected time: the store's clock, and the claims' now.
var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

const lease = time.Minute

// openPieces opens a store whose clock stands at t0, with project id in
// RENDER under run token 1.
func openPieces(t *testing.T, open func(testing.TB) *store.Store, ids ...string) *store.Store {
	t.Helper()
	s := open(t)
	s.SetClock(func() time.Time { return t0 })
	for _, id := range ids {
		if err := s.CreateProject(t.Context(), &store.Project{ID: id, OrgID: "org", Stage: apitypes.StageQueued}, store.Admission{}); err != nil {
			t.Fatal(err)
		}
		setRun(t, s, id, apitypes.StageRender, 1)
	}
	return s
}

// openOnePiece is openPieces with one render piece of p1 planned for run 1.
func openOnePiece(t *testing.T, open func(testing.TB) *store.Store) (*store.Store, store.PieceKey) {
	t.Helper()
	s := openPieces(t, open, "p1")
	plan(t, s, "p1", 1, "render", specs(1))
	return s, key("p1", "render", 0)
}

// setRun puts project id in stage under run token run, as the pipeline's
// requeue and stage writes do.
func setRun(t *testing.T, s *store.Store, id string, stage apitypes.Stage, run int64) {
	t.Helper()
	if _, err := s.MutateProject(t.Context(), id, func(p *store.Project) error {
		p.Stage, p.RunToken = stage, run
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// specs are n render specs, the i-th naming clip i.
func specs(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = fmt.Appendf(nil, `{"clip":"c%02d"}`, i)
	}
	return out
}

func plan(t *testing.T, s *store.Store, id string, run int64, kind string, specs [][]byte) []store.Piece {
	t.Helper()
	pieces, err := s.PlanPieces(t.Context(), id, run, kind, specs, nil)
	if err != nil {
		t.Fatalf("PlanPieces(%s, run %d, %s): %v", id, run, kind, err)
	}
	return pieces
}

// claim claims key for run at now, failing the test when it is not claimable.
func claim(t *testing.T, s *store.Store, key store.PieceKey, run int64, now time.Time) store.Piece {
	t.Helper()
	p, ok, err := s.ClaimPiece(t.Context(), key, run, now, now.Add(lease))
	if err != nil || !ok {
		t.Fatalf("ClaimPiece(%v, run %d, at %v) = %v, %v; want it claimed", key, run, now, ok, err)
	}
	return p
}

// refuseClaim checks key is not claimable for run at now.
func refuseClaim(t *testing.T, s *store.Store, key store.PieceKey, run int64, now time.Time, why string) {
	t.Helper()
	if p, ok, err := s.ClaimPiece(t.Context(), key, run, now, now.Add(lease)); err != nil || ok {
		t.Errorf("ClaimPiece(%v, run %d) %s = %+v, %v, %v; want not claimed", key, run, why, p, ok, err)
	}
}

func finish(t *testing.T, s *store.Store, p store.Piece) {
	t.Helper()
	if err := s.FinishPiece(t.Context(), p.PieceKey, p.Attempt, result(p.Index)); err != nil {
		t.Fatalf("FinishPiece(%v, attempt %d): %v", p.PieceKey, p.Attempt, err)
	}
}

func result(i int) []byte { return fmt.Appendf(nil, `{"export":"c%02d.mp4"}`, i) }

func pieces(t *testing.T, s *store.Store, id, kind string) []store.Piece {
	t.Helper()
	ps, err := s.ProjectPieces(t.Context(), id, kind)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// states is each piece's state, in order.
func states(ps []store.Piece) []store.PieceState {
	out := make([]store.PieceState, len(ps))
	for i, p := range ps {
		out[i] = p.State
	}
	return out
}

func key(id, kind string, i int) store.PieceKey {
	return store.PieceKey{ProjectID: id, Kind: kind, Index: i}
}

// A plan makes PENDING pieces of the run; a claim takes one under a lease
// with its spec, a renewal moves the lease, and a finish stores the result
// and ends the lease. A held, finished or absent piece is not claimable.
func TestPiecesPlanClaimFinish(t *testing.T) {
	t.Parallel()
	stores.ForEachEngine(t, func(t *testing.T, open func(testing.TB) *store.Store) {
		s := openPieces(t, open, "p1")
		ctx := t.Context()
		planned := plan(t, s, "p1", 1, "render", specs(3))
		for i, p := range planned {
			sum := sha256.Sum256(specs(3)[i])
			want := store.Piece{PieceKey: key("p1", "render", i), Run: 1, Spec: specs(3)[i], SpecHash: hex.EncodeToString(sum[:]),
				State: store.PiecePending, UpdatedAt: t0}
			if !equalPieces(p, want) {
				t.Errorf("planned piece %d = %+v, want %+v", i, p, want)
			}
		}
		if got := pieces(t, s, "p1", "render"); len(got) != 3 || !equalPieces(got[2], planned[2]) {
			t.Errorf("ProjectPieces = %+v, want the planned %+v", got, planned)
		}

		k := key("p1", "render", 1)
		c := claim(t, s, k, 1, t0)
		if c.State != store.PieceRunning || c.Attempt != 1 || !c.LeaseUntil.Equal(t0.Add(lease)) || string(c.Spec) != string(specs(3)[1]) {
			t.Errorf("claimed %+v; want RUNNING, attempt 1, lease until %v, with its spec", c, t0.Add(lease))
		}
		refuseClaim(t, s, k, 1, t0.Add(lease/2), "within its lease")
		if ok, err := s.RenewPiece(ctx, k, c.Attempt, t0.Add(3*lease)); err != nil || !ok {
			t.Errorf("RenewPiece of the holding claim = %v, %v; want true", ok, err)
		}
		refuseClaim(t, s, k, 1, t0.Add(2*lease), "within its renewed lease")
		finish(t, s, c)
		got := pieces(t, s, "p1", "render")[1]
		if got.State != store.PieceDone || string(got.Result) != string(result(1)) || !got.LeaseUntil.IsZero() || got.Attempt != 1 {
			t.Errorf("finished piece %+v; want DONE with its result, no lease, attempt 1", got)
		}
		refuseClaim(t, s, k, 1, t0.Add(time.Hour), "once DONE")
		refuseClaim(t, s, key("p1", "render", 3), 1, t0, "that was never planned")
		if err := s.FinishPiece(ctx, k, c.Attempt, result(9)); !errors.Is(err, store.ErrStaleRun) {
			t.Errorf("a second FinishPiece: %v, want ErrStaleRun", err)
		}
		if ok, err := s.RenewPiece(ctx, k, c.Attempt, t0.Add(time.Hour)); err != nil || ok {
			t.Errorf("RenewPiece of a DONE piece = %v, %v; want false", ok, err)
		}
	})
}

func equalPieces(a, b store.Piece) bool {
	return a.PieceKey == b.PieceKey && a.Run == b.Run && string(a.Spec) == string(b.Spec) && a.SpecHash == b.SpecHash &&
		a.State == b.State && a.Attempt == b.Attempt && a.LeaseUntil.Equal(b.LeaseUntil) && string(a.Result) == string(b.Result) &&
		a.Error == b.Error && a.Failures == b.Failures && a.UpdatedAt.Equal(b.UpdatedAt)
}

// A run that restarts re-plans the same specs: the DONE piece keeps its
// result (under the new run), the running and failed ones start over as
// PENDING with their Attempt kept, so the old run's claim writes nothing.
func TestPiecesRePlanKeepsDoneResultsAndResetsTheRest(t *testing.T) {
	t.Parallel()
	stores.ForEachEngine(t, func(t *testing.T, open func(testing.TB) *store.Store) {
		s := openPieces(t, open, "p1")
		ctx := t.Context()
		plan(t, s, "p1", 1, "render", specs(3))
		finish(t, s, claim(t, s, key("p1", "render", 0), 1, t0))
		running := claim(t, s, key("p1", "render", 1), 1, t0)
		failed := claim(t, s, key("p1", "render", 2), 1, t0)
		if st, err := s.FailPiece(ctx, failed.PieceKey, failed.Attempt, "ffmpeg exited 1", false, 3); err != nil || st != store.PiecePending {
			t.Fatalf("FailPiece = %v, %v; want PENDING", st, err)
		}

		later := t0.Add(time.Hour)
		s.SetClock(func() time.Time { return later })
		setRun(t, s, "p1", apitypes.StageRender, 2)
		replanned := plan(t, s, "p1", 2, "render", specs(3))
		sum := func(i int) string { h := sha256.Sum256(specs(3)[i]); return hex.EncodeToString(h[:]) }
		want := []store.Piece{
			{PieceKey: key("p1", "render", 0), Run: 2, Spec: specs(3)[0], SpecHash: sum(0), State: store.PieceDone, Attempt: 1, Result: result(0), UpdatedAt: later},
			{PieceKey: key("p1", "render", 1), Run: 2, Spec: specs(3)[1], SpecHash: sum(1), State: store.PiecePending, Attempt: 1, UpdatedAt: later},
			{PieceKey: key("p1", "render", 2), Run: 2, Spec: specs(3)[2], SpecHash: sum(2), State: store.PiecePending, Attempt: 1, UpdatedAt: later},
		}
		stored := pieces(t, s, "p1", "render")
		for i := range want {
			if !equalPieces(replanned[i], want[i]) || !equalPieces(stored[i], want[i]) {
				t.Errorf("piece %d after the re-plan: returned %+v, stored %+v; want %+v", i, replanned[i], stored[i], want[i])
			}
		}
		if err := s.FinishPiece(ctx, running.PieceKey, running.Attempt, result(1)); !errors.Is(err, store.ErrStaleRun) {
			t.Errorf("FinishPiece of the old run's claim after the re-plan: %v, want ErrStaleRun", err)
		}
		refuseClaim(t, s, running.PieceKey, 1, later, "by the old run")
		if c := claim(t, s, running.PieceKey, 2, later); c.Attempt != 2 {
			t.Errorf("the new run's claim has attempt %d, want 2 (after the old claim's 1)", c.Attempt)
		}
	})
}

// A re-plan with one spec changed redoes that piece only; fewer specs
// delete the pieces past them, of that kind only; ProjectPieces lists
// every kind by kind then index.
func TestPiecesRePlanChangedAndFewerSpecs(t *testing.T) {
	t.Parallel()
	stores.ForEachEngine(t, func(t *testing.T, open func(testing.TB) *store.Store) {
		s := openPieces(t, open, "p1")
		plan(t, s, "p1", 1, "transcribe", specs(2))
		for i := range 4 {
			plan(t, s, "p1", 1, "render", specs(4)) // planning again changes nothing of unclaimed pieces
			finish(t, s, claim(t, s, key("p1", "render", i), 1, t0))
		}
		changed := specs(4)
		changed[1] = []byte(`{"clip":"c01","captions":false}`)
		var enqueued []int
		got, err := s.PlanPieces(t.Context(), "p1", 1, "render", changed, func(p store.Piece) store.TxHook {
			enqueued = append(enqueued, p.Index)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := []store.PieceState{store.PieceDone, store.PiecePending, store.PieceDone, store.PieceDone}; !slices.Equal(states(got), want) {
			t.Errorf("states after one spec changed = %v, want %v", states(got), want)
		}
		if got[1].Result != nil || string(got[1].Spec) != string(changed[1]) || string(got[2].Result) != string(result(2)) {
			t.Errorf("after one spec changed: %+v; want the changed piece without a result, with its new spec, the others kept", got)
		}
		if !slices.Equal(enqueued, []int{1}) {
			t.Errorf("enqueued %v, want [1]: only the changed piece is PENDING", enqueued)
		}

		plan(t, s, "p1", 1, "render", changed[:2])
		all := pieces(t, s, "p1", "")
		var names []string
		for _, p := range all {
			names = append(names, fmt.Sprintf("%s/%d", p.Kind, p.Index))
		}
		if want := []string{"render/0", "render/1", "transcribe/0", "transcribe/1"}; !slices.Equal(names, want) {
			t.Errorf("every piece after a plan of 2 renders = %v, want %v", names, want)
		}
		if got := pieces(t, s, "p1", "render"); len(got) != 2 || got[0].State != store.PieceDone {
			t.Errorf("renders after a plan of 2 = %+v; want the first 2, the first DONE", got)
		}
		if got := plan(t, s, "p1", 1, "render", nil); len(got) != 0 || len(pieces(t, s, "p1", "render")) != 0 {
			t.Errorf("a plan of no renders left %+v", pieces(t, s, "p1", "render"))
		}
	})
}

// A stale run (its token raised, or the project out of a processing stage,
// or gone) plans nothing and claims nothing.
func TestPiecesStaleRunIsRefused(t *testing.T) {
	t.Parallel()
	stores.ForEachEngine(t, func(t *testing.T, open func(testing.TB) *store.Store) {
		s := openPieces(t, open, "p1")
		ctx := t.Context()
		stale := func(run int64, why string) {
			t.Helper()
			before := pieces(t, s, "p1", "")
			if _, err := s.PlanPieces(ctx, "p1", run, "render", specs(5), nil); !errors.Is(err, store.ErrStaleRun) {
				t.Errorf("PlanPieces of run %d %s: %v, want ErrStaleRun", run, why, err)
			}
			if after := pieces(t, s, "p1", ""); !slices.EqualFunc(before, after, equalPieces) {
				t.Errorf("PlanPieces of run %d %s changed the pieces: %+v, then %+v", run, why, before, after)
			}
		}
		stale(0, "under an older token")
		plan(t, s, "p1", 1, "render", specs(2))

		setRun(t, s, "p1", apitypes.StageRender, 2)
		stale(1, "after the token was raised")
		refuseClaim(t, s, key("p1", "render", 0), 1, t0, "after the token was raised")
		refuseClaim(t, s, key("p1", "render", 0), 2, t0, "of a run that did not plan it")

		plan(t, s, "p1", 2, "render", specs(2))
		setRun(t, s, "p1", apitypes.StageQueued, 2)
		stale(2, "of a QUEUED project")
		refuseClaim(t, s, key("p1", "render", 0), 2, t0, "of a QUEUED project")
		setRun(t, s, "p1", apitypes.StageComplete, 2)
		stale(2, "of a COMPLETE project")
		refuseClaim(t, s, key("p1", "render", 0), 2, t0, "of a COMPLETE project")

		if _, err := s.PlanPieces(ctx, "p-none", 0, "render", specs(1), nil); !errors.Is(err, store.ErrStaleRun) {
			t.Errorf("PlanPieces of a project that is not there: %v, want ErrStaleRun", err)
		}
		if got := pieces(t, s, "p-none", ""); len(got) != 0 {
			t.Errorf("pieces of a project that is not there: %+v", got)
		}
	})
}

// A RUNNING piece whose lease passed (its worker died) is claimed again
// with the next Attempt; the first claim's writes are then refused, and
// the second claim's are not.
func TestPiecesExpiredLeaseIsClaimedAgain(t *testing.T) {
	t.Parallel()
	stores.ForEachEngine(t, func(t *testing.T, open func(testing.TB) *store.Store) {
		s, k := openOnePiece(t, open)
		ctx := t.Context()
		first := claim(t, s, k, 1, t0)
		refuseClaim(t, s, k, 1, t0.Add(lease), "at the end of its lease")
		second := claim(t, s, k, 1, t0.Add(lease+time.Millisecond))
		if second.Attempt != first.Attempt+1 || !second.LeaseUntil.Equal(t0.Add(2*lease+time.Millisecond)) {
			t.Errorf("the second claim: attempt %d, lease until %v; want attempt %d, until %v",
				second.Attempt, second.LeaseUntil, first.Attempt+1, t0.Add(2*lease+time.Millisecond))
		}

		if ok, err := s.RenewPiece(ctx, k, first.Attempt, t0.Add(time.Hour)); err != nil || ok {
			t.Errorf("RenewPiece of the first claim = %v, %v; want false", ok, err)
		}
		if err := s.FinishPiece(ctx, k, first.Attempt, result(0)); !errors.Is(err, store.ErrStaleRun) {
			t.Errorf("FinishPiece of the first claim: %v, want ErrStaleRun", err)
		}
		if st, err := s.FailPiece(ctx, k, first.Attempt, "killed", true, 3); !errors.Is(err, store.ErrStaleRun) {
			t.Errorf("FailPiece of the first claim = %v, %v; want ErrStaleRun", st, err)
		}
		if err := s.ReleasePiece(ctx, k, first.Attempt); !errors.Is(err, store.ErrStaleRun) {
			t.Errorf("ReleasePiece of the first claim: %v, want ErrStaleRun", err)
		}
		got := pieces(t, s, "p1", "render")[0]
		if got.State != store.PieceRunning || got.Attempt != second.Attempt || !got.LeaseUntil.Equal(second.LeaseUntil) || got.Failures != 0 {
			t.Errorf("after the first claim's writes: %+v; want the second claim's, untouched", got)
		}
		if ok, err := s.RenewPiece(ctx, k, second.Attempt, t0.Add(time.Hour)); err != nil || !ok {
			t.Errorf("RenewPiece of the second claim = %v, %v; want true", ok, err)
		}
		finish(t, s, second)
	})
}

// FailPiece puts a piece back to PENDING until its failures reach
// maxFailures, then FAILED with the reason; a final failure is FAILED at
// once. A FAILED piece is not claimable.
func TestPiecesFailRetriesThenFails(t *testing.T) {
	t.Parallel()
	stores.ForEachEngine(t, func(t *testing.T, open func(testing.TB) *store.Store) {
		s := openPieces(t, open, "p1")
		ctx := t.Context()
		plan(t, s, "p1", 1, "render", specs(2))
		k := key("p1", "render", 0)
		now := t0
		for n := int64(1); n <= 3; n++ {
			c := claim(t, s, k, 1, now)
			st, err := s.FailPiece(ctx, k, c.Attempt, fmt.Sprintf("failure %d", n), false, 3)
			want := store.PiecePending
			if n == 3 {
				want = store.PieceFailed
			}
			got := pieces(t, s, "p1", "render")[0]
			if err != nil || st != want || got.State != want || got.Failures != n || !got.LeaseUntil.IsZero() {
				t.Errorf("failure %d: FailPiece = %v, %v, stored %+v; want %s with %d failures, no lease", n, st, err, got, want, n)
			}
			if wantErr := map[bool]string{true: "failure 3", false: ""}[n == 3]; got.Error != wantErr {
				t.Errorf("failure %d: error %q, want %q", n, got.Error, wantErr)
			}
			now = now.Add(time.Second) // a PENDING piece is claimed again at once, no lease to wait out
		}
		refuseClaim(t, s, k, 1, now.Add(time.Hour), "once FAILED")

		final := claim(t, s, key("p1", "render", 1), 1, t0)
		if st, err := s.FailPiece(ctx, final.PieceKey, final.Attempt, "the source has no such time", true, 3); err != nil || st != store.PieceFailed {
			t.Errorf("a final failure = %v, %v; want FAILED", st, err)
		}
		if got := pieces(t, s, "p1", "render")[1]; got.State != store.PieceFailed || got.Failures != 1 || got.Error != "the source has no such time" {
			t.Errorf("after a final failure: %+v; want FAILED, 1 failure, its reason", got)
		}
	})
}

// ReleasePiece hands a claim back without a failure: the piece is PENDING
// and claimable at once, and the released claim writes nothing more.
func TestPiecesRelease(t *testing.T) {
	t.Parallel()
	stores.ForEachEngine(t, func(t *testing.T, open func(testing.TB) *store.Store) {
		s, k := openOnePiece(t, open)
		ctx := t.Context()
		c := claim(t, s, k, 1, t0)
		if err := s.ReleasePiece(ctx, k, c.Attempt); err != nil {
			t.Fatal(err)
		}
		if got := pieces(t, s, "p1", "render")[0]; got.State != store.PiecePending || !got.LeaseUntil.IsZero() || got.Failures != 0 || got.Attempt != 1 {
			t.Errorf("released piece %+v; want PENDING, no lease, no failure, attempt 1", got)
		}
		if err := s.ReleasePiece(ctx, k, c.Attempt); !errors.Is(err, store.ErrStaleRun) {
			t.Errorf("a second ReleasePiece: %v, want ErrStaleRun", err)
		}
		if again := claim(t, s, k, 1, t0); again.Attempt != 2 {
			t.Errorf("claimed again with attempt %d, want 2", again.Attempt)
		}
		if err := s.FinishPiece(ctx, k, c.Attempt, result(0)); !errors.Is(err, store.ErrStaleRun) {
			t.Errorf("FinishPiece of the released claim: %v, want ErrStaleRun", err)
		}
	})
}

// enqueue runs in the plan's transaction for exactly the pieces left
// PENDING, and sees each one's row there; a hook that fails undoes the
// whole plan.
func TestPiecesPlanEnqueuesInItsTransaction(t *testing.T) {
	t.Parallel()
	stores.ForEachEngine(t, func(t *testing.T, open func(testing.TB) *store.Store) {
		s := openPieces(t, open, "p1")
		ctx := t.Context()
		plan(t, s, "p1", 1, "render", specs(3))
		finish(t, s, claim(t, s, key("p1", "render", 0), 1, t0))

		seen := map[int]string{}
		enqueue := func(p store.Piece) store.TxHook {
			return func(ctx context.Context, tx *sql.Tx) error {
				var state, hash string
				err := tx.QueryRowContext(ctx, `SELECT state, spec_hash FROM pieces WHERE project_id = ? AND kind = ? AND idx = ?`,
					p.ProjectID, p.Kind, p.Index).Scan(&state, &hash)
				if err != nil {
					return err
				}
				if hash != p.SpecHash {
					return fmt.Errorf("piece %v: the transaction sees spec %s, the hook was given %s", p.PieceKey, hash, p.SpecHash)
				}
				seen[p.Index] = state
				return nil
			}
		}
		if _, err := s.PlanPieces(ctx, "p1", 1, "render", specs(4), enqueue); err != nil {
			t.Fatal(err)
		}
		if want := map[int]string{1: "PENDING", 2: "PENDING", 3: "PENDING"}; fmt.Sprint(seen) != fmt.Sprint(want) {
			t.Errorf("enqueue saw %v, want %v (not the DONE piece 0)", seen, want)
		}

		before := pieces(t, s, "p1", "")
		failing := func(store.Piece) store.TxHook {
			return func(context.Context, *sql.Tx) error { return errors.New("the job system is away") }
		}
		// One piece left, changed (so PENDING): the plan would delete three.
		if _, err := s.PlanPieces(ctx, "p1", 1, "render", [][]byte{[]byte(`{"clip":"new"}`)}, failing); err == nil {
			t.Fatal("a plan whose enqueue failed succeeded")
		}
		if _, err := s.PlanPieces(ctx, "p1", 1, "transcribe", specs(2), failing); err == nil {
			t.Fatal("a plan whose enqueue failed succeeded")
		}
		if after := pieces(t, s, "p1", ""); !slices.EqualFunc(before, after, equalPieces) {
			t.Errorf("plans whose enqueue failed changed the pieces:\nbefore %+v\nafter  %+v", before, after)
		}
	})
}

// PieceCounts counts every project's pieces by kind and state; DeletePieces
// removes one project's pieces and no other's.
func TestPiecesCountsAndDelete(t *testing.T) {
	t.Parallel()
	stores.ForEachEngine(t, func(t *testing.T, open func(testing.TB) *store.Store) {
		s := openPieces(t, open, "p1", "p2")
		ctx := t.Context()
		if counts, err := s.PieceCounts(ctx); err != nil || len(counts) != 0 {
			t.Errorf("PieceCounts of no pieces = %v, %v; want none", counts, err)
		}
		plan(t, s, "p1", 1, "render", specs(3))
		plan(t, s, "p1", 1, "transcribe", specs(1))
		plan(t, s, "p2", 1, "render", specs(2))
		finish(t, s, claim(t, s, key("p1", "render", 0), 1, t0))
		failed := claim(t, s, key("p2", "render", 1), 1, t0)
		if _, err := s.FailPiece(ctx, failed.PieceKey, failed.Attempt, "broken", true, 3); err != nil {
			t.Fatal(err)
		}
		claim(t, s, key("p1", "transcribe", 0), 1, t0)

		counts, err := s.PieceCounts(ctx)
		want := []store.PieceCount{
			{Kind: "render", State: store.PieceDone, N: 1},
			{Kind: "render", State: store.PieceFailed, N: 1},
			{Kind: "render", State: store.PiecePending, N: 3},
			{Kind: "transcribe", State: store.PieceRunning, N: 1},
		}
		if err != nil || !slices.Equal(counts, want) {
			t.Errorf("PieceCounts = %v, %v; want %v", counts, err, want)
		}

		if err := s.DeletePieces(ctx, "p1"); err != nil {
			t.Fatal(err)
		}
		if got := pieces(t, s, "p1", ""); len(got) != 0 {
			t.Errorf("p1's pieces after DeletePieces: %+v", got)
		}
		if got := pieces(t, s, "p2", ""); len(got) != 2 {
			t.Errorf("p2's pieces after p1's were deleted: %+v, want its 2", got)
		}
		counts, err = s.PieceCounts(ctx)
		want = []store.PieceCount{{Kind: "render", State: store.PieceFailed, N: 1}, {Kind: "render", State: store.PiecePending, N: 1}}
		if err != nil || !slices.Equal(counts, want) {
			t.Errorf("PieceCounts after DeletePieces = %v, %v; want %v", counts, err, want)
		}
		if err := s.DeletePieces(ctx, "p-none"); err != nil {
			t.Errorf("DeletePieces of a project without pieces: %v", err)
		}
	})
}

// Workers claiming one piece at once: exactly one gets it (on PostgreSQL
// the claims run in parallel sessions; SQLite's one connection takes them
// in turn).
func TestPiecesConcurrentClaimsTakeAPieceOnce(t *testing.T) {
	t.Parallel()
	stores.ForEachEngine(t, func(t *testing.T, open func(testing.TB) *store.Store) {
		s, k := openOnePiece(t, open)
		const workers = 8
		var wg sync.WaitGroup
		won := make([]bool, workers)
		errs := make([]error, workers)
		for i := range workers {
			wg.Go(func() {
				_, won[i], errs[i] = s.ClaimPiece(t.Context(), k, 1, t0, t0.Add(lease))
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		if n := len(slices.DeleteFunc(won, func(w bool) bool { return !w })); n != 1 {
			t.Errorf("%d of %d simultaneous claims took the piece, want 1", n, workers)
		}
		if got := pieces(t, s, "p1", "render")[0]; got.Attempt != 1 {
			t.Errorf("attempt %d after the claims, want 1", got.Attempt)
		}
	})
}

// ProjectPieceStates reads what ProjectPieces does but the specs and the
// results, on a running, a finished and a pending piece.
func TestPieceStatesLeaveOutSpecsAndResults(t *testing.T) {
	t.Parallel()
	stores.ForEachEngine(t, func(t *testing.T, open func(testing.TB) *store.Store) {
		s := openPieces(t, open, "p1")
		plan(t, s, "p1", 1, "render", specs(3))
		claim(t, s, key("p1", "render", 0), 1, t0)
		finish(t, s, claim(t, s, key("p1", "render", 1), 1, t0))
		full := pieces(t, s, "p1", "render")
		light, err := s.ProjectPieceStates(t.Context(), "p1", "render")
		if err != nil {
			t.Fatal(err)
		}
		if len(light) != len(full) {
			t.Fatalf("ProjectPieceStates gave %d pieces, ProjectPieces %d", len(light), len(full))
		}
		if full[1].Result == nil || full[0].Spec == nil {
			t.Fatalf("ProjectPieces lost a spec or a result: %+v", full)
		}
		for i := range full {
			if light[i].Spec != nil || light[i].Result != nil {
				t.Errorf("piece %d: spec %q, result %q; want neither", i, light[i].Spec, light[i].Result)
			}
			want := full[i]
			want.Spec, want.Result = nil, nil
			if !equalPieces(light[i], want) {
				t.Errorf("piece %d = %+v, want %+v", i, light[i], want)
			}
		}
	})
}
