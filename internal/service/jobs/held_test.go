package jobs

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestHeldLongerThan: a job a worker runs is held since its claim, by the
// database's clock, and listed only for its own kind.
func TestHeldLongerThan(t *testing.T) {
	forEachEngine(t, func(t *testing.T, newLocation func(testing.TB) string) {
		st := openStore(t, newLocation(t))
		started, release := make(chan struct{}), make(chan struct{})
		j := openJobs(t, st, Config{}, func(ctx context.Context, _ *Job[noteArgs]) error {
			close(started)
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil
		})
		defer close(release)
		if err := j.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := addNote(t.Context(), st, j, "held", false); err != nil {
			t.Fatal(err)
		}
		<-started
		kind := noteArgs{}.Kind()

		// Claimed before now, so held longer than no time at all.
		held, err := j.HeldLongerThan(t.Context(), 0, kind)
		if err != nil {
			t.Fatal(err)
		}
		if len(held) != 1 || held[0].Kind != kind {
			t.Fatalf("held longer than 0: %+v; want the running note job", held)
		}
		var args noteArgs
		if err := json.Unmarshal(held[0].Args, &args); err != nil || args.Note != "held" {
			t.Errorf("held job's args %q (%v); want the note's JSON", held[0].Args, err)
		}

		// Claimed just now: not held for an hour.
		if held, err := j.HeldLongerThan(t.Context(), time.Hour, kind); err != nil || len(held) != 0 {
			t.Errorf("held longer than an hour: %+v, %v; want none", held, err)
		}
		// Another kind's jobs only.
		if held, err := j.HeldLongerThan(t.Context(), 0, "another_kind"); err != nil || len(held) != 0 {
			t.Errorf("held of another kind: %+v, %v; want none", held, err)
		}
	})
}
