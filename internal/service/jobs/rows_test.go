package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// noteRow is the row of a note job: how often its work ran.
type noteRow struct{ runs int }

// noteKind is a RowKind over the notes table: a note needs its work while
// it has never run. worked records the notes whose Work ran; flaky's first
// Get fails as a database that did not answer would.
func noteKind(st *store.Store, worked *[]string, mu *sync.Mutex) RowKind[noteArgs, string, noteRow] {
	var failedOnce bool
	return RowKind[noteArgs, string, noteRow]{
		Kind: Kind{Queue: QueueCopy},
		Row:  "note",
		Pending: func(ctx context.Context) ([]string, error) {
			rows, err := st.DB().QueryContext(ctx, `SELECT name FROM notes WHERE runs = 0 ORDER BY name`)
			if err != nil {
				return nil, err
			}
			defer func() { _ = rows.Close() }()
			var names []string
			for rows.Next() {
				var name string
				if err := rows.Scan(&name); err != nil {
					return nil, err
				}
				names = append(names, name)
			}
			return names, rows.Err()
		},
		Args: func(name string) noteArgs { return noteArgs{Note: name} },
		ID:   func(a noteArgs) string { return a.Note },
		Get: func(ctx context.Context, note string) (noteRow, error) {
			mu.Lock()
			flaky := note == "flaky" && !failedOnce
			failedOnce = failedOnce || flaky
			mu.Unlock()
			if flaky {
				return noteRow{}, errors.New("the database did not answer")
			}
			var r noteRow
			err := st.DB().QueryRowContext(ctx, `SELECT runs FROM notes WHERE name = ?`, note).Scan(&r.runs)
			return r, err
		},
		Needs: func(r noteRow) bool { return r.runs == 0 },
		Gone:  sql.ErrNoRows,
		Work: func(ctx context.Context, job *Job[noteArgs], _ noteRow) error {
			mu.Lock()
			*worked = append(*worked, job.Args.Note)
			mu.Unlock()
			return bump(ctx, st, job.Args.Note)
		},
	}
}

// storeNote inserts the note's row, and with enqueue its job, in one
// transaction; rollback undoes both.
func storeNote(ctx context.Context, st *store.Store, note string, runs int, enqueue func(context.Context, *sql.Tx) error, rollback bool) error {
	tx, err := st.DB().BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, `INSERT INTO notes(name, runs) VALUES (?, ?)`, note, runs); err != nil {
		return err
	}
	if enqueue != nil {
		if err := enqueue(ctx, tx); err != nil {
			return err
		}
	}
	if rollback {
		return nil
	}
	return tx.Commit()
}

// TestRowKind: a RowKind's job is inserted with its row (Enqueue) and with
// nothing else; Adopt gives one to each row that needs work and has none,
// once; a job whose row is gone, or needs no work, ends at its first
// attempt without Work; a failed Get is retried.
func TestRowKind(t *testing.T) {
	forEachEngine(t, func(t *testing.T, newLocation func(testing.TB) string) {
		st := openStore(t, newLocation(t))
		j := openJobs(t, st, Config{}, nil)
		var (
			mu     sync.Mutex
			worked []string
		)
		rows, err := RegisterRows(j, noteKind(st, &worked, &mu))
		if err != nil {
			t.Fatal(err)
		}
		ctx := t.Context()
		enqueue := func(note string) func(context.Context, *sql.Tx) error {
			return rows.Enqueue(func() noteArgs { return noteArgs{Note: note} })
		}
		for _, n := range []struct {
			note     string
			runs     int
			enqueue  bool
			rollback bool
		}{
			{note: "enqueued", enqueue: true},
			{note: "flaky", enqueue: true},
			{note: "rolled-back", enqueue: true, rollback: true},
			{note: "old"},               // an older release's row, without a job
			{note: "done", runs: 1},     // finished: needs no job
			{note: "finished", runs: 1}, // finished after its job was inserted (below)
		} {
			var hook func(context.Context, *sql.Tx) error
			if n.enqueue {
				hook = enqueue(n.note)
			}
			if err := storeNote(ctx, st, n.note, n.runs, hook, n.rollback); err != nil {
				t.Fatal(err)
			}
		}
		// A job whose row was deleted, and one whose row needs no work.
		for _, note := range []string{"gone", "finished"} {
			if err := j.Insert(ctx, noteArgs{Note: note}); err != nil {
				t.Fatal(err)
			}
		}
		for range 2 { // the second adopts nothing
			if err := rows.Adopt(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if n := countOf(t, j, "available"); n != 5 {
			t.Errorf("%d jobs waiting; want 5 (enqueued, flaky, old adopted, gone, finished)", n)
		}

		if err := j.Start(ctx); err != nil {
			t.Fatal(err)
		}
		storetest.Eventually(t, "every job completed", func() bool { return countOf(t, j, "completed") == 5 })
		recent, err := j.Recent(ctx, QueueCopy, 10)
		if err != nil {
			t.Fatal(err)
		}
		attempts := map[string]int{}
		for _, in := range recent {
			var a noteArgs
			if err := json.Unmarshal([]byte(in.Args), &a); err != nil {
				t.Fatal(err)
			}
			attempts[a.Note] = in.Attempt
		}
		want := map[string]int{"enqueued": 1, "flaky": 2, "old": 1, "gone": 1, "finished": 1}
		if fmt.Sprint(attempts) != fmt.Sprint(want) {
			t.Errorf("attempts by job %v; want %v", attempts, want)
		}
		mu.Lock()
		slices.Sort(worked)
		mu.Unlock()
		if fmt.Sprint(worked) != "[enqueued flaky old]" {
			t.Errorf("Work ran for %v; want enqueued, flaky and old (not the gone, done or rolled back ones)", worked)
		}
		if got := runsOf(t, st); got["rolled-back"] != 0 || len(got) != 5 {
			t.Errorf("rows %v; want no rolled back row", got)
		}
	})
}

// TestRegisterRowsNeedsItsFunctions: a RowKind without its functions is
// refused at registration, not when its first job runs.
func TestRegisterRowsNeedsItsFunctions(t *testing.T) {
	st := openStore(t, t.TempDir())
	j := openJobs(t, st, Config{}, nil)
	_, err := RegisterRows(j, RowKind[noteArgs, string, noteRow]{Kind: Kind{Queue: QueueCopy}, Row: "note"})
	if err == nil {
		t.Fatal("RegisterRows without its functions: no error")
	}
}
