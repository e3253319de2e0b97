package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/backoff"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// noteArgs is a test job named by the note it belongs to.
type noteArgs struct {
	Note string `json:"note"`
}

func (noteArgs) Kind() string { return "test_note" }

// testRetry retries fast: the same curve, in milliseconds.
var testRetry = backoff.Retry{Base: 10 * time.Millisecond, Max: 40 * time.Millisecond, Attempts: 3}

// forEachEngine runs fn on each engine the store runs on; newLocation
// makes a new, empty database of it (a SQLite data directory, or a
// PostgreSQL database of the test's own).
func forEachEngine(t *testing.T, fn func(t *testing.T, newLocation func(testing.TB) string)) {
	t.Helper()
	storetest.ForEachEngine(t, func(t *testing.T, e storetest.Engine) { fn(t, e.Location) })
}

// testMasterKey seals the secrets of the tests' stores, so a second
// process (a second handle) of one database opens them too.
var testMasterKey = storetest.MasterKey()

// openStore opens the store at location, as clipperd does.
func openStore(t *testing.T, location string) *store.Store {
	t.Helper()
	st, err := store.Open(t.Context(), location, store.WithMasterKey(testMasterKey))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if _, err := st.DB().ExecContext(t.Context(), `CREATE TABLE IF NOT EXISTS notes (name TEXT PRIMARY KEY, runs INTEGER NOT NULL DEFAULT 0)`); err != nil {
		t.Fatal(err)
	}
	return st
}

// openJobs opens the job system on st, registers work for noteArgs and
// stops it at the end of the test (before the store closes).
func openJobs(t *testing.T, st *store.Store, cfg Config, work func(context.Context, *Job[noteArgs]) error) *Jobs {
	t.Helper()
	cfg.Store = st
	if cfg.Retry == (backoff.Retry{}) {
		cfg.Retry = testRetry
	}
	if cfg.FetchPollInterval == 0 {
		cfg.FetchPollInterval = 100 * time.Millisecond
	}
	j, err := Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if work != nil {
		if err := Register(j, Kind{Queue: QueueCopy, Unique: true}, work); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { j.Stop(context.Background()) })
	return j
}

// addNote inserts note's row and its job in one transaction; rollback
// undoes both.
func addNote(ctx context.Context, st *store.Store, j *Jobs, note string, rollback bool) error {
	tx, err := st.DB().BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO notes(name) VALUES (?)`, note); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := j.InsertTx(ctx, tx, noteArgs{Note: note}); err != nil {
		_ = tx.Rollback()
		return err
	}
	if rollback {
		return tx.Rollback()
	}
	return tx.Commit()
}

// bump counts a run of note in its row, in a transaction of the store's
// one connection, as a real job's work does.
func bump(ctx context.Context, st *store.Store, note string) error {
	tx, err := st.DB().BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	var runs int
	if err := tx.QueryRowContext(ctx, `SELECT runs FROM notes WHERE name = ?`, note).Scan(&runs); err != nil {
		_ = tx.Rollback()
		return fmt.Errorf("note %s: %w", note, err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE notes SET runs = ? WHERE name = ?`, runs+1, note); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

func runsOf(t *testing.T, st *store.Store) map[string]int {
	t.Helper()
	rows, err := st.DB().QueryContext(t.Context(), `SELECT name, runs FROM notes`)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rows.Close() }()
	out := map[string]int{}
	for rows.Next() {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		out[name] = n
	}
	return out
}

func countOf(t *testing.T, j *Jobs, state string) int64 {
	t.Helper()
	counts, err := j.Counts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, c := range counts {
		if c.Queue == QueueCopy && c.State == state {
			n += c.Jobs
		}
	}
	return n
}

// TestMigrateBesideStore: River's schema goes into the store's file next
// to the store's own, and opening again applies nothing twice.
func TestMigrateBesideStore(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, newLocation func(testing.TB) string) {
		dir := newLocation(t)
		st := openStore(t, dir)
		openJobs(t, st, Config{}, nil)
		openJobs(t, st, Config{}, nil)
		var river, store int
		if err := st.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM river_migration`).Scan(&river); err != nil {
			t.Fatal(err)
		}
		if err := st.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM schema_migrations`).Scan(&store); err != nil {
			t.Fatal(err)
		}
		if river == 0 || store == 0 {
			t.Errorf("river migrations %d, store migrations %d; want both applied", river, store)
		}
	})
}

// TestProcessesStartingTogetherMigrateOnce: processes of a scale-out
// installation starting at once on a new PostgreSQL database all open the
// job system; River's steps are applied once, under the migration lock.
func TestProcessesStartingTogetherMigrateOnce(t *testing.T) {
	t.Parallel()
	url := storetest.PostgresURL(t)
	const processes = 4
	stores := make([]*store.Store, processes)
	for i := range stores {
		stores[i] = openStore(t, url) // the store's own migrations lock already
	}
	errs := make(chan error, processes)
	for _, st := range stores {
		go func() {
			js, err := Open(t.Context(), Config{Store: st})
			if err == nil {
				js.Stop(context.Background())
			}
			errs <- err
		}()
	}
	for range processes {
		if err := <-errs; err != nil {
			t.Errorf("a process starting beside others: %v", err)
		}
	}
	var applied, distinct int
	if err := stores[0].DB().QueryRowContext(t.Context(), `SELECT COUNT(*), COUNT(DISTINCT version) FROM river_migration`).Scan(&applied, &distinct); err != nil {
		t.Fatal(err)
	}
	if applied == 0 || applied != distinct {
		t.Errorf("river_migration holds %d rows of %d versions; want each applied once", applied, distinct)
	}
}

// withoutDriver is a store whose database River has no driver for.
type withoutDriver struct{ *store.Store }

func (withoutDriver) JobDriver() string { return "" }

func TestOpenRefusesAStoreWithoutADriver(t *testing.T) {
	st := openStore(t, t.TempDir())
	_, err := Open(t.Context(), Config{Store: withoutDriver{st}})
	if err == nil || !strings.Contains(err.Error(), "no River driver") {
		t.Errorf("Open on a database River has no driver for: %v; want an error saying so", err)
	}
}

// TestInsertTxWithItsRow: a job exists exactly when the transaction of its
// row commits, runs once on the store's one connection, and sees the row.
func TestInsertTxWithItsRow(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, newLocation func(testing.TB) string) {
		st := openStore(t, newLocation(t))
		j := openJobs(t, st, Config{}, func(ctx context.Context, job *Job[noteArgs]) error {
			return bump(ctx, st, job.Args.Note)
		})
		if err := j.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := addNote(t.Context(), st, j, "kept", false); err != nil {
			t.Fatal(err)
		}
		if err := addNote(t.Context(), st, j, "undone", true); err != nil {
			t.Fatal(err)
		}
		storetest.Eventually(t, "the committed job completed", func() bool { return countOf(t, j, "completed") == 1 })
		if got := runsOf(t, st); len(got) != 1 || got["kept"] != 1 {
			t.Errorf("runs %v; want kept once, no undone row", got)
		}
		if n := countOf(t, j, "available") + countOf(t, j, "retryable"); n != 0 {
			t.Errorf("%d jobs left waiting; the rolled back job must not exist", n)
		}
	})
}

// On SQLite a job inserted in its row's transaction is heard by River's
// listener and run at once: the queues' polls (sqlitePoll) only find what no
// insert announced, so they can be rare. With a poll of an hour, only the
// listener can have woken the queue.
func TestSQLiteInsertTxWakesTheQueueWithoutAPoll(t *testing.T) {
	t.Parallel()
	st := openStore(t, t.TempDir())
	j := openJobs(t, st, Config{FetchPollInterval: time.Hour}, func(ctx context.Context, job *Job[noteArgs]) error {
		return bump(ctx, st, job.Args.Note)
	})
	if err := j.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // past the queues' first fetch at start
	for _, note := range []string{"first", "second"} {
		if err := addNote(t.Context(), st, j, note, false); err != nil {
			t.Fatal(err)
		}
		storetest.Eventually(t, "the job of "+note+" ran", func() bool { return runsOf(t, st)[note] == 1 })
	}
}

// TestUniqueByArgs: inserting the job of a row twice adds one job.
func TestUniqueByArgs(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, newLocation func(testing.TB) string) {
		st := openStore(t, newLocation(t))
		j := openJobs(t, st, Config{}, func(context.Context, *Job[noteArgs]) error { return nil })
		if err := addNote(t.Context(), st, j, "n1", false); err != nil {
			t.Fatal(err)
		}
		if err := j.Insert(t.Context(), noteArgs{Note: "n1"}); err != nil {
			t.Fatal(err)
		}
		if n := countOf(t, j, "available"); n != 1 {
			t.Errorf("%d available jobs; want 1", n)
		}
	})
}

// TestRetriesThenGivesUp: a failing job is retried on the curve within its
// kind's budget (2 attempts here, the system's being 3), its last attempt
// says so, and its errors stay visible.
func TestRetriesThenGivesUp(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, newLocation func(testing.TB) string) {
		st := openStore(t, newLocation(t))
		var last atomic.Int32
		j := openJobs(t, st, Config{}, nil)
		err := Register(j, Kind{Queue: QueueCopy, Retry: backoff.Retry{Attempts: 2}}, func(_ context.Context, job *Job[noteArgs]) error {
			if job.LastAttempt() {
				last.Add(1)
			}
			return fmt.Errorf("attempt %d of %d failed", job.Attempt, job.MaxAttempts)
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := addNote(t.Context(), st, j, "doomed", false); err != nil {
			t.Fatal(err)
		}
		storetest.Eventually(t, "the job was discarded", func() bool { return countOf(t, j, "discarded") == 1 })
		recent, err := j.Recent(t.Context(), QueueCopy, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(recent) != 1 {
			t.Fatalf("recent %+v; want the one job", recent)
		}
		got := recent[0]
		want := []string{"attempt 1 of 2 failed", "attempt 2 of 2 failed"}
		if got.Kind != "test_note" || got.State != "discarded" || got.Attempt != 2 || fmt.Sprint(got.Errors) != fmt.Sprint(want) ||
			!strings.Contains(got.Args, `"doomed"`) {
			t.Errorf("job %+v; want discarded after 2 attempts with errors %q", got, want)
		}
		if last.Load() != 1 {
			t.Errorf("LastAttempt was true on %d attempts; want 1", last.Load())
		}
	})
}

// TestStopHandsBackRunningJob: a job cut short by Stop is available again
// without its attempt counted, and the next start runs it.
func TestStopHandsBackRunningJob(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, newLocation func(testing.TB) string) {
		dir := newLocation(t)
		st := openStore(t, dir)
		held := make(chan struct{}, 1)
		first := openJobs(t, st, Config{}, func(ctx context.Context, _ *Job[noteArgs]) error {
			held <- struct{}{}
			<-ctx.Done()
			return ctx.Err()
		})
		if err := first.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := addNote(t.Context(), st, first, "cut", false); err != nil {
			t.Fatal(err)
		}
		<-held
		grace, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		first.Stop(grace)
		cancel()
		recent, err := first.Recent(t.Context(), QueueCopy, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(recent) != 1 || recent[0].State != "available" || recent[0].Attempt != 0 {
			t.Fatalf("after Stop: %+v; want the job available, no attempt counted", recent)
		}

		next := openJobs(t, st, Config{}, func(ctx context.Context, job *Job[noteArgs]) error {
			return bump(ctx, st, job.Args.Note)
		})
		if err := next.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		storetest.Eventually(t, "the handed back job ran after the next start", func() bool { return runsOf(t, st)["cut"] == 1 })
	})
}

// busyCounter counts the log records that report SQLite's lock errors.
type busyCounter struct {
	slog.Handler
	busy *atomic.Int64
}

func (b busyCounter) Handle(ctx context.Context, r slog.Record) error {
	text := r.Message
	r.Attrs(func(a slog.Attr) bool { text += " " + a.Value.String(); return true })
	if strings.Contains(text, "SQLITE_BUSY") || strings.Contains(text, "database is locked") {
		b.busy.Add(1)
	}
	return nil
}

func (b busyCounter) Enabled(context.Context, slog.Level) bool { return true }

// TestClaimedExactlyOnceByTwoProcesses: two job systems, each on its own
// store handle of one file (as two processes would be), share 200 jobs
// inserted while they run: every job runs exactly once, none is lost.
func TestClaimedExactlyOnceByTwoProcesses(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, newLocation func(testing.TB) string) {
		if testing.Short() {
			t.Skip("runs 200 jobs")
		}
		dir := newLocation(t)
		var busy atomic.Int64
		logger := slog.New(busyCounter{busy: &busy})
		var mu sync.Mutex
		ranBy := map[string][]int{}
		stores := []*store.Store{openStore(t, dir), openStore(t, dir)}
		var systems []*Jobs
		for i, st := range stores {
			j := openJobs(t, st, Config{Logger: logger}, func(ctx context.Context, job *Job[noteArgs]) error {
				if err := bump(ctx, st, job.Args.Note); err != nil {
					return err
				}
				mu.Lock()
				ranBy[job.Args.Note] = append(ranBy[job.Args.Note], i)
				mu.Unlock()
				return nil
			})
			if err := j.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			systems = append(systems, j)
		}
		const n = 200
		start := time.Now()
		for k := range n {
			i := k % 2
			if err := addNote(t.Context(), stores[i], systems[i], fmt.Sprintf("n%03d", k), false); err != nil {
				t.Fatal(err)
			}
		}
		storetest.Eventually(t, "every job completed", func() bool { return countOf(t, systems[0], "completed") == n })
		elapsed := time.Since(start)

		runs := runsOf(t, stores[0])
		perProcess := [2]int{}
		for k := range n {
			note := fmt.Sprintf("n%03d", k)
			if runs[note] != 1 || len(ranBy[note]) != 1 {
				t.Errorf("note %s ran %d times (by %v); want once", note, runs[note], ranBy[note])
				continue
			}
			perProcess[ranBy[note][0]]++
		}
		t.Logf("%d jobs in %s over two handles of one file: %v per process, %d SQLITE_BUSY log records",
			n, elapsed.Round(time.Millisecond), perProcess, busy.Load())
	})
}

// TestOneConnectionNeitherDeadlocksNorStarves: River's background work (the
// elector, the producer's fetches, the completer, the notification
// listener's polls) shares the store's single connection with the store's
// own transactions and with jobs that open transactions of their own.
func TestOneConnectionNeitherDeadlocksNorStarves(t *testing.T) {
	t.Parallel()
	st := openStore(t, t.TempDir())
	j := openJobs(t, st, Config{}, func(ctx context.Context, job *Job[noteArgs]) error {
		return bump(ctx, st, job.Args.Note)
	})
	if err := j.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	const writers, each = 4, 25
	errs := make(chan error, writers)
	for w := range writers {
		go func() {
			for k := range each {
				if err := addNote(t.Context(), st, j, fmt.Sprintf("w%d-%02d", w, k), false); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	storetest.Eventually(t, "every job completed on one connection", func() bool {
		return countOf(t, j, "completed") == writers*each
	})
	for note, n := range runsOf(t, st) {
		if n != 1 {
			t.Errorf("note %s ran %d times", note, n)
		}
	}
}

// BenchmarkStoreWithRiverIdle measures the store's transactions on its one
// connection beside an idle River client (its elector, producer polls and
// notification listener share the connection) against a store without one,
// alternating the two in one run; BENCHMARKS.md has the ratio.
func BenchmarkStoreWithRiverIdle(b *testing.B) {
	open := func(withRiver bool) *store.Store {
		st, err := store.Open(b.Context(), b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = st.Close() })
		for _, q := range []string{`CREATE TABLE notes (name TEXT PRIMARY KEY, runs INTEGER NOT NULL DEFAULT 0)`, `INSERT INTO notes(name) VALUES ('n')`} {
			if _, err := st.DB().ExecContext(b.Context(), q); err != nil {
				b.Fatal(err)
			}
		}
		if !withRiver {
			return st
		}
		j, err := Open(b.Context(), Config{Store: st})
		if err != nil {
			b.Fatal(err)
		}
		if err := Register(j, Kind{Queue: QueueCopy}, func(context.Context, *Job[noteArgs]) error { return nil }); err != nil {
			b.Fatal(err)
		}
		if err := j.Start(b.Context()); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { j.Stop(context.Background()) })
		return st
	}
	alone, beside := open(false), open(true)
	time.Sleep(time.Second) // past the client's start: election, first fetches
	var took [2]time.Duration
	n := 0
	for b.Loop() {
		for k := range 2 {
			i := (n + k) % 2 // alternate which goes first
			t0 := time.Now()
			if err := bump(b.Context(), []*store.Store{alone, beside}[i], "n"); err != nil {
				b.Fatal(err)
			}
			took[i] += time.Since(t0)
		}
		n++
	}
	b.ReportMetric(float64(took[0].Nanoseconds())/float64(n), "ns/tx-alone")
	b.ReportMetric(float64(took[1].Nanoseconds())/float64(n), "ns/tx-beside-river")
	b.ReportMetric(float64(took[1])/float64(took[0]), "ratio")
}

// killHelperEnv names the data directory of the process that
// TestKilledProcessJobResumes starts and kills.
const killHelperEnv = "CLIPPERD_JOBS_KILL_HELPER"

// TestKillHelperProcess is the process TestKilledProcessJobResumes kills:
// it claims the waiting job, marks it started, and works on it until killed.
func TestKillHelperProcess(t *testing.T) {
	t.Parallel()
	dir := os.Getenv(killHelperEnv)
	if dir == "" {
		t.Skip("run by TestKilledProcessJobResumes")
	}
	st := openStore(t, dir)
	j := openJobs(t, st, Config{}, func(ctx context.Context, _ *Job[noteArgs]) error {
		if err := os.WriteFile(filepath.Join(dir, "started"), nil, 0o600); err != nil {
			return err
		}
		<-ctx.Done()
		return ctx.Err()
	})
	if err := j.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {} // until killed
}

// TestKilledProcessJobResumes: a process killed with SIGKILL while working a
// job leaves it running in the database; the next process (River's rescuer,
// on its leader) retries it once the claim has lasted the kind's Timeout
// and RescueAfter, and it completes exactly once.
func TestKilledProcessJobResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the killed process's leadership to expire")
	}
	dir := t.TempDir()
	st := openStore(t, dir)
	setup := openJobs(t, st, Config{}, nil)
	if err := Register(setup, Kind{Queue: QueueCopy, Unique: true}, func(context.Context, *Job[noteArgs]) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := addNote(t.Context(), st, setup, "killed", false); err != nil {
		t.Fatal(err)
	}

	child := exec.Command(os.Args[0], "-test.run=^TestKillHelperProcess$", "-test.count=1")
	child.Env = append(os.Environ(), killHelperEnv+"="+dir)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	storetest.Eventually(t, "the helper process started the job", func() bool {
		_, err := os.Stat(filepath.Join(dir, "started"))
		return err == nil
	})
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	killed := time.Now()
	if n := countOf(t, setup, "running"); n != 1 {
		t.Fatalf("%d running jobs after the kill; want the killed one", n)
	}

	const lease = 2 * time.Second
	next, err := Open(t.Context(), Config{Store: st, Retry: testRetry, RescueAfter: lease,
		FetchPollInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := Register(next, Kind{Queue: QueueCopy, Timeout: lease, Unique: true}, func(ctx context.Context, job *Job[noteArgs]) error {
		return bump(ctx, st, job.Args.Note)
	}); err != nil {
		t.Fatal(err)
	}
	if err := next.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { next.Stop(context.Background()) })
	storetest.Eventually(t, "the killed process's job ran again", func() bool { return runsOf(t, st)["killed"] == 1 })
	resumed := time.Since(killed)
	storetest.Eventually(t, "the job completed", func() bool { return countOf(t, next, "completed") == 1 })
	recent, err := next.Recent(t.Context(), QueueCopy, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(recent) != 1 || recent[0].Attempt != 2 || len(recent[0].Errors) != 1 || !strings.Contains(recent[0].Errors[0], "Stuck job rescued") {
		t.Errorf("job %+v; want completed on attempt 2 after a rescue", recent)
	}
	t.Logf("resumed %s after the kill (lease %s)", resumed.Round(100*time.Millisecond), lease)
}
