package server

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// TestStartNamesRowsLostToACutLog: a write-ahead log cut exactly after a
// commit (what the store's check at open cannot tell from a shorter log)
// loses the projects committed after the cut while their media stay;
// the start logs an error naming them. A data directory whose media all
// have rows logs none.
func TestStartNamesRowsLostToACutLog(t *testing.T) {
	t.Parallel()
	live := t.TempDir()
	st, err := store.Open(t.Context(), live)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, pragma := range []string{`PRAGMA wal_checkpoint(TRUNCATE)`, `PRAGMA wal_autocheckpoint = 0`} {
		if _, err := st.DB().ExecContext(t.Context(), pragma); err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	for range 6 {
		p := &store.Project{ID: store.NewID("prj_"), OrgID: DevOrgID, UserID: DevUserID, Stage: apitypes.StageComplete, CreatedAt: time.Now()}
		if err := st.CreateProject(t.Context(), p, store.Admission{}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}

	// A copy as kill -9 leaves it (the database, its log, the media), and
	// one with the log cut after the fourth project's commit.
	start := func(dir string) string {
		t.Helper()
		var logs bytes.Buffer
		startServer(t, Config{DataDir: dir, Logger: slog.New(slog.NewTextHandler(&logs, nil))}).Close()
		return logs.String()
	}
	crashed := func() (dir, wal string) {
		dir = t.TempDir()
		for _, name := range []string{store.DefaultFile, store.DefaultFile + "-wal"} {
			data, err := os.ReadFile(filepath.Join(live, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		for _, id := range ids {
			if err := os.MkdirAll(filepath.Join(dir, "media", id), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return dir, filepath.Join(dir, store.DefaultFile+"-wal")
	}
	whole, _ := crashed()
	if logs := start(whole); strings.Contains(logs, "lost rows") {
		t.Errorf("a whole data directory logged lost rows:\n%s", logs)
	}

	cut, wal := crashed()
	ends := storetest.WALCommitEnds(t, wal)
	if err := os.Truncate(wal, ends[len(ends)-3]); err != nil { // the last two projects' commits
		t.Fatal(err)
	}
	logs := start(cut)
	if !strings.Contains(logs, "level=ERROR") || !strings.Contains(logs, "the database has lost rows") ||
		!strings.Contains(logs, "unknown=2 of=6") || !strings.Contains(logs, ids[5]) {
		t.Errorf("start after the log was cut at a commit logged:\n%s\nwant an error naming the 2 projects lost", logs)
	}
}
