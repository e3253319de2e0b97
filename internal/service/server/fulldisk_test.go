package server

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/quietlog"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest/stores"
)

// On a full disk every failure (message, component and cause) is logged on
// the failure curve (quietlog), at 0, 1, 3, 7 and 15 s of a 20 s window,
// whatever the number of projects failing alike; the server has few kinds
// of failure, so its lines have a small bound. Before, each project's
// refused requeue was a line of its own on its own curve: 20 projects gave
// 100 lines in 20 s.
const (
	fullDiskWindow     = 20 * time.Second
	fullDiskPerFailure = 5
	fullDiskLinesBound = 30
	fullDiskProjects   = 20
)

// TestFullDiskLogsABoundedNumberOfLines: projects whose runs' leases end
// while the database is full (every write of a project needs a page the
// capped database lacks: SQLite's own SQLITE_FULL, as a full disk gives)
// are requeued by the watchdog on the loops' backoff, and the server logs
// at most fullDiskLinesBound warnings and errors in fullDiskWindow, each
// failure at most fullDiskPerFailure times; once space is back, the
// watchdog requeues every project.
func TestFullDiskLogsABoundedNumberOfLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := openData(t, dir)
	// Their runs hold them until the test ends their leases, once the
	// server's database is full (however long that takes).
	leaseEnds := time.Now().Add(time.Hour)
	var ids []string
	for i := range fullDiskProjects {
		p := &store.Project{ID: fmt.Sprintf("prj_full%02d", i), OrgID: DevOrgID, UserID: DevUserID, Stage: apitypes.StageRender,
			VideoURL: "up_x", CreatedAt: st.Now(), UpdatedAt: st.Now(), LeaseUntil: leaseEnds}
		if err := st.CreateProject(t.Context(), p, store.Admission{}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	lines := &lineCount{}
	lines.start()
	srv := startServer(t, Config{DataDir: dir, Logger: slog.New(lines)})
	// Each write of a project's stage (a requeue) stores a page's worth
	// more, which the full database has no room for.
	if _, err := srv.store.DB().Exec(`CREATE TABLE test_fill (b BLOB);
		CREATE TRIGGER test_fill_on_write BEFORE UPDATE OF stage ON projects BEGIN INSERT INTO test_fill VALUES (randomblob(8192)); END`); err != nil {
		t.Fatal(err)
	}
	stores.Fill(t, srv.store)
	// The leases end now: a write in place of a fixed-width column, which
	// the full database takes, and which the trigger lets through.
	ended := store.Timestamp(time.Now().Add(-time.Second))
	if _, err := srv.store.DB().Exec(`UPDATE projects SET lease_until = ? WHERE id LIKE 'prj_full%'`, ended); err != nil {
		t.Fatalf("ending the leases on the full database: %v", err)
	}
	lines.start()
	time.Sleep(fullDiskWindow)
	total, byMsg := lines.stop()
	t.Logf("on a full database for %s with %d projects to requeue: %d warning and error lines: %s", fullDiskWindow, len(ids), total, byMsg)
	if !strings.Contains(byMsg, "requeue a project whose run's lease ended") {
		t.Fatalf("no refused requeue was logged: the database was not full for them")
	}
	if total > fullDiskLinesBound {
		t.Errorf("%d lines in %s, want at most %d", total, fullDiskWindow, fullDiskLinesBound)
	}
	for msg, n := range lines.byMsg {
		if n > fullDiskPerFailure*lines.causes[msg] {
			t.Errorf("%q logged %d times (%d causes), want at most %d a cause", msg, n, lines.causes[msg], fullDiskPerFailure)
		}
	}

	if _, err := srv.store.DB().Exec(`DROP TRIGGER test_fill_on_write; DELETE FROM test_fill`); err != nil {
		t.Fatal(err)
	}
	if err := srv.store.LimitSize(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		storetest.Eventually(t, "project "+id+" requeued", func() bool {
			p, err := srv.store.GetProject(t.Context(), id)
			return err == nil && p.RunToken > 0
		})
	}
}

// lineCount counts the warning and error lines handed to it while counting
// is on, by component and message, and the distinct causes of each.
type lineCount struct {
	mu     sync.Mutex
	attrs  string
	on     bool
	total  int
	byMsg  map[string]int
	causes map[string]int
	seen   map[string]bool
	parent *lineCount
}

func (l *lineCount) root() *lineCount {
	if l.parent != nil {
		return l.parent
	}
	return l
}

func (l *lineCount) start() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.on, l.total, l.byMsg, l.causes, l.seen = true, 0, map[string]int{}, map[string]int{}, map[string]bool{}
}

func (l *lineCount) stop() (int, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.on = false
	var parts []string
	for m, n := range l.byMsg {
		parts = append(parts, fmt.Sprintf("%d %s", n, m))
	}
	sort.Strings(parts)
	return l.total, strings.Join(parts, "; ")
}

func (l *lineCount) Enabled(_ context.Context, level slog.Level) bool { return level >= slog.LevelWarn }

func (l *lineCount) Handle(_ context.Context, r slog.Record) error {
	root := l.root()
	root.mu.Lock()
	defer root.mu.Unlock()
	if !root.on {
		return nil
	}
	cause := ""
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "err" || a.Key == "error" {
			if err, ok := a.Value.Any().(error); ok {
				cause = quietlog.Cause(err).Error() // one full disk under each project's wrapping
			} else {
				cause = a.Value.String()
			}
		}
		return true
	})
	msg := l.attrs + " " + r.Message
	root.total++
	root.byMsg[msg]++
	if !root.seen[msg+"\x00"+cause] {
		root.seen[msg+"\x00"+cause] = true
		root.causes[msg]++
	}
	return nil
}

func (l *lineCount) WithAttrs(as []slog.Attr) slog.Handler {
	return &lineCount{attrs: l.attrs + fmt.Sprint(as), parent: l.root()}
}

func (l *lineCount) WithGroup(string) slog.Handler { return l }
