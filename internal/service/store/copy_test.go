package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// The copy list names every table of the schema but River's and the
// schema's version, once each: a migration that adds a table and forgets
// copyTables fails here, on both engines, instead of losing the table's
// rows in a move.
func TestCopyTablesCoverTheSchema(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		s, _ := be.open(t)
		tables, err := s.dialect.tableNames(t.Context(), s.db)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, table := range tables {
			if !notCopied(table) {
				want = append(want, table)
			}
		}
		got := slices.Clone(copyTables)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("copyTables (sorted) = %v,\nthe schema's tables = %v", got, want)
		}
	})
}

// fillEveryTable gives each table of the store at least one row, through
// the store's own methods, in an order where rowid order differs from id
// order, and returns the org's id.
func fillEveryTable(t *testing.T, s *Store) string {
	t.Helper()
	ctx := t.Context()
	const org = "org"
	at := time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)
	s.SetClock(func() time.Time { return at })
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.ClaimInstallation(ctx, "inst_copied", "/srv/media")
	must(err)
	must(s.MarkInstallation(ctx, "inst_copied", "/srv/media"))
	key, err := s.CreateKey(ctx, org, "user")
	must(err)
	must(s.EnsureKey(ctx, "dev-key", org, "user"))
	_, err = s.MediaKey(ctx)
	must(err)
	must(s.SaveRateWindow(ctx, key, []time.Time{at.Add(-time.Second), at}))
	must(s.SpendFailedAttempt(ctx, "api:203.0.113.9", at, 6*time.Second, 54*time.Second))
	must(s.CreateGallerySession(ctx, "hash1", Key{Hash: KeyHash(key), OrgID: org, UserID: "user"}, at.Add(time.Hour)))
	must(s.SaveBrandTemplate(ctx, org, apitypes.BrandTemplate{Name: "Mine", Type: "CUSTOM"}))
	var accounts []string
	for _, name := range []string{"zeta", "alpha", "mid"} {
		a, err := s.ConnectSocialAccount(ctx, org, apitypes.SocialAccount{Platform: "YOUTUBE", ExtUserName: name})
		must(err)
		accounts = append(accounts, a.PostAccountID)
	}
	up := &Upload{ID: NewID("up_"), OrgID: org, UserID: "user", Key: "uploads/x.bin", Total: 10, Received: 10, Complete: true}
	must(s.SaveUpload(ctx, up))
	p := newProject(org)
	p.SourceID, p.SourceKey = up.ID, "media/"+p.ID+"/source.mp4"
	must(s.CreateProject(ctx, p, Admission{Reserve: 10}))
	clips := saveClips(t, s, org, "c02", "c01", "c03")
	must(s.ReplaceTranscript(ctx, p.ID, []TranscriptWord{{Word: "hello", StartMs: 10, EndMs: 500, Confidence: 0.5}}))
	_, err = s.MutateProject(ctx, p.ID, func(p *Project) error {
		p.Stage, p.RunToken, p.LeaseUntil = apitypes.StageRender, 1, at.Add(time.Minute)
		return nil
	})
	must(err)
	_, err = s.PlanPieces(ctx, p.ID, 1, "render", [][]byte{[]byte(`{"clip":"c01"}`), []byte(`{"clip":"c02"}`)}, nil)
	must(err)
	claimed, ok, err := s.ClaimPiece(ctx, PieceKey{p.ID, "render", 0}, 1, at, at.Add(time.Minute))
	must(err)
	if !ok {
		t.Fatal("the planned piece could not be claimed")
	}
	must(s.FinishPiece(ctx, claimed.PieceKey, claimed.Attempt, []byte(`{"export":"c01.mp4"}`)))
	must(s.RecordMediaSum(ctx, "media/"+p.ID+"/c01.mp4", MediaSum{Size: 10, SHA256: "ab"}))
	must(s.AddBrollItem(ctx, &BrollItem{OrgID: "org_1", Name: "a.png", Key: "broll/org_1/a.png", Keywords: []string{"oven"}, Still: true, Width: 4, Height: 4, Size: 10}))
	for range 3 {
		must(s.EnqueueDelivery(ctx, &Delivery{ProjectID: p.ID, Kind: "WEBHOOK", Target: "http://hooks.example/", Body: "{}"}, nil))
	}
	for _, name := range []string{"b", "a", "c"} {
		c, err := s.CreateCollection(ctx, org, name, 10)
		must(err)
		must(s.AddCollectionContent(ctx, org, c.CollectionID, clips[1]))
		must(s.AddCollectionContent(ctx, org, c.CollectionID, clips[0]))
	}
	must(s.CreateCopyJob(ctx, copyRequest(org, "funny", "v1"), false, nil))
	must(s.CreateCensorJob(ctx, &CensorJob{OrgID: org, ProjectID: p.ID, ClipID: "c01"}, nil))
	sch, err := s.CreateSchedule(ctx, org, content(accounts[0]), at.Add(-time.Minute))
	must(err)
	_, err = s.FireSchedule(ctx, sch.ID, PostLimits{MonthlyCap: 100}, nil)
	must(err)
	_, err = s.CreateSchedule(ctx, org, content(accounts[1]), at.Add(time.Hour))
	must(err)
	for _, a := range accounts {
		_, err := s.CreatePost(ctx, org, content(a), PostLimits{MonthlyCap: 100}, nil)
		must(err)
	}
	for _, table := range copyTables {
		if n := countRows(t, s, table); n == 0 {
			t.Fatalf("fillEveryTable leaves %s empty: give it a row so the copy of its rows is tested", table)
		}
	}
	return org
}

// tableRows is every row of table as text, columns by name (rowid too,
// where both engines have it), sorted: what CopyTo must carry over.
func tableRows(t *testing.T, s *Store, table string, cols []string) []string {
	t.Helper()
	rows, err := selectColumns(t.Context(), s.db, table, cols)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := scanValues(rows, len(cols))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i, v := range vals {
			if bs, ok := v.([]byte); ok {
				v = fmt.Sprintf("%x", bs)
			}
			fmt.Fprintf(&b, "%s=%v|", cols[i], v)
		}
		out = append(out, b.String())
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// CopyTo carries every row of a single box's SQLite store into an empty
// store of either engine, with the insertion order and the identity
// counters, so the copy answers every read as the original does and goes
// on numbering after it.
func TestCopyToKeepsEveryRowAndOrder(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := t.Context()
		src, _ := openTest(t)
		org := fillEveryTable(t, src)
		dst, _ := be.open(t)
		dst.SetClock(src.now)

		report, err := src.CopyTo(ctx, dst)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range report.Tables {
			if want := int64(countRows(t, src, tr.Table)); tr.Rows != want {
				t.Errorf("report: %s copied %d rows, the source has %d", tr.Table, tr.Rows, want)
			}
		}
		for _, table := range copyTables {
			from, err := src.dialect.columnNames(ctx, src.db, table)
			if err != nil {
				t.Fatal(err)
			}
			to, err := dst.dialect.columnNames(ctx, dst.db, table)
			if err != nil {
				t.Fatal(err)
			}
			var shared []string
			for _, c := range from {
				if slices.Contains(to, c) {
					shared = append(shared, c)
				}
			}
			if a, b := tableRows(t, src, table, shared), tableRows(t, dst, table, shared); !slices.Equal(a, b) {
				t.Errorf("table %s differs after the copy:\nsource %v\ntarget %v", table, a, b)
			}
		}

		// Reads that order by insertion (rowid) or by copied numbers agree.
		srcAccounts, _ := src.SocialAccounts(ctx, org)
		dstAccounts, err := dst.SocialAccounts(ctx, org)
		if err != nil || !slices.EqualFunc(srcAccounts, dstAccounts, func(a, b apitypes.SocialAccount) bool { return a.PostAccountID == b.PostAccountID }) {
			t.Errorf("accounts in order: source %v, target %v (%v)", srcAccounts, dstAccounts, err)
		}
		srcCols, _, _ := src.ListCollections(ctx, org, "", 0, 10)
		dstCols, _, err := dst.ListCollections(ctx, org, "", 0, 10)
		if err != nil || fmt.Sprint(srcCols) != fmt.Sprint(dstCols) {
			t.Errorf("collections: source %v, target %v (%v)", srcCols, dstCols, err)
		}
		srcPosts, _ := src.PendingPosts(ctx)
		dstPosts, err := dst.PendingPosts(ctx)
		if err != nil || !slices.Equal(srcPosts, dstPosts) {
			t.Errorf("pending posts in order: source %v, target %v (%v)", srcPosts, dstPosts, err)
		}
		srcKey, _ := src.MediaKey(ctx)
		if dstKey, err := dst.MediaKey(ctx); err != nil || string(srcKey) != string(dstKey) {
			t.Errorf("the media key changed in the copy (%v): links handed out would break", err)
		}

		// New rows are numbered after the copied ones.
		before, _ := dst.PendingDeliveries(ctx)
		d := &Delivery{ProjectID: "p", Kind: "WEBHOOK", Target: "http://hooks.example/", Body: "{}"}
		if err := dst.EnqueueDelivery(ctx, d, nil); err != nil {
			t.Fatalf("a delivery after the copy: %v", err)
		}
		if d.ID <= slices.Max(before) {
			t.Errorf("new delivery id %d, not after the copied %v", d.ID, before)
		}
		c, err := dst.CreateCollection(ctx, org, "after", 10)
		if err != nil {
			t.Fatalf("a collection after the copy: %v", err)
		}
		if all, _, _ := dst.ListCollections(ctx, org, "", 0, 10); len(all) != 4 || all[3].CollectionID != c.CollectionID {
			t.Errorf("collections after a new one: %v, want it last", all)
		}
		a, err := dst.ConnectSocialAccount(ctx, org, apitypes.SocialAccount{Platform: "LINKEDIN", ExtUserName: "new"})
		if err != nil {
			t.Fatalf("an account after the copy: %v", err)
		}
		if all, _ := dst.SocialAccounts(ctx, org); len(all) != 4 || all[3].PostAccountID != a.PostAccountID {
			t.Errorf("accounts after a new one: %v, want it last", all)
		}

		// A second copy into the same target is refused: nothing is mixed.
		if _, err := src.CopyTo(ctx, dst); !errors.Is(err, ErrTargetNotEmpty) {
			t.Fatalf("a copy into a target with rows: %v, want ErrTargetNotEmpty", err)
		}
	})
}

// A copy cut short leaves the target as empty as it was, so it is run
// again from the start.
func TestCopyToCutShortLeavesTheTargetEmpty(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		src, _ := openTest(t)
		fillEveryTable(t, src)
		dst, _ := be.open(t)
		// The target refuses the rows of the last table copied.
		if _, err := dst.db.ExecContext(t.Context(), `ALTER TABLE posts ADD COLUMN must_be_set INTEGER NOT NULL`); err != nil {
			t.Fatal(err)
		}
		if _, err := src.CopyTo(t.Context(), dst); err == nil || !strings.Contains(err.Error(), "posts") {
			t.Fatalf("copy into a target that refuses posts: %v, want an error naming posts", err)
		}
		for _, table := range copyTables {
			if n := countRows(t, dst, table); n != 0 {
				t.Errorf("after the failed copy the target's %s has %d rows, want 0", table, n)
			}
		}
		if _, err := dst.db.ExecContext(t.Context(), `ALTER TABLE posts DROP COLUMN must_be_set`); err != nil {
			t.Fatal(err)
		}
		if _, err := src.CopyTo(t.Context(), dst); err != nil {
			t.Fatalf("the copy run again: %v", err)
		}
	})
}

// A source holding a table the copy list does not name is refused rather
// than moved without it.
func TestCopyToRefusesATableItDoesNotKnow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src, _ := openTest(t)
	if _, err := src.db.ExecContext(ctx, `CREATE TABLE extra_things (id TEXT)`); err != nil {
		t.Fatal(err)
	}
	dst, _ := openTest(t)
	if _, err := src.CopyTo(ctx, dst); err == nil || !strings.Contains(err.Error(), "extra_things") {
		t.Fatalf("copy of a source with an unknown table: %v, want an error naming it", err)
	}
}

// BenchmarkCopyToPostgres measures CopyTo of a single box with 200
// projects of 10 clips each (2,200 rows of the two widest tables) into a
// fresh PostgreSQL database; the command is in BENCHMARKS.md.
func BenchmarkCopyToPostgres(b *testing.B) {
	ctx := context.Background()
	src, err := Open(ctx, b.TempDir(), WithMasterKey(testMasterKey))
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	const projects, clipsEach = 200, 10
	for range projects {
		p := newProject("org")
		if err := src.CreateProject(ctx, p, Admission{}); err != nil {
			b.Fatal(err)
		}
		clips := make([]Clip, clipsEach)
		for i := range clips {
			clips[i] = Clip{ID: fmt.Sprintf("%s.c%02d", p.ID, i), ProjectID: p.ID, CurationID: fmt.Sprintf("c%02d", i),
				OrgID: "org", URIForExport: "/media/" + p.ID + "/c.mp4", Title: "A title", Description: strings.Repeat("words ", 40)}
		}
		if err := src.ReplaceClips(ctx, p.ID, "org", clips); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		b.StopTimer()
		dst, err := Open(ctx, storetest.PostgresURL(b), WithMasterKey(testMasterKey))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		r, err := src.CopyTo(ctx, dst)
		if err != nil || r.Total() != projects*(1+clipsEach) {
			b.Fatalf("copy: %d rows, %v", r.Total(), err)
		}
		b.StopTimer()
		_ = dst.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(projects*(1+clipsEach))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// A column a later migration adds (both stores have it) is copied without
// a change to CopyTo: the copy goes by the columns the catalogues list.
func TestCopyToTakesNewColumns(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := t.Context()
		src, _ := openTest(t)
		dst, _ := be.open(t)
		for _, s := range []*Store{src, dst} {
			if _, err := s.db.ExecContext(ctx, `ALTER TABLE projects ADD COLUMN added_later TEXT`); err != nil {
				t.Fatal(err)
			}
		}
		p := newProject("org")
		if err := src.CreateProject(ctx, p, Admission{}); err != nil {
			t.Fatal(err)
		}
		if _, err := src.db.ExecContext(ctx, `UPDATE projects SET added_later = ? WHERE id = ?`, "2026-05-04T12:00:00.000Z", p.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := src.CopyTo(ctx, dst); err != nil {
			t.Fatal(err)
		}
		var added string
		if err := dst.db.QueryRowContext(ctx, `SELECT added_later FROM projects WHERE id = ?`, p.ID).Scan(&added); err != nil || added != "2026-05-04T12:00:00.000Z" {
			t.Errorf("the new column after the copy: %q %v", added, err)
		}
	})
}

// A copy run with EndLeases leaves no project holding the lease of a run
// of the stopped source, so the target's watchdog requeues it at once; a
// hook that fails rolls the whole copy back.
func TestCopyToThenEndsLeases(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := t.Context()
		src, _ := openTest(t)
		dst, _ := be.open(t)
		p := newProject("org")
		p.Stage, p.RunToken = apitypes.StageRender, 1
		if err := src.CreateProject(ctx, p, Admission{}); err != nil {
			t.Fatal(err)
		}
		if held, err := src.RenewLease(ctx, p.ID, 1, src.Now().Add(time.Hour)); err != nil || !held {
			t.Fatalf("lease the source's run: %v %v", held, err)
		}
		failing := func(context.Context, *sql.Tx) error { return errors.New("boom") }
		if _, err := src.CopyToThen(ctx, dst, failing); err == nil {
			t.Fatal("a failing hook: the copy succeeded")
		}
		if err := dst.CheckEmpty(ctx); err != nil {
			t.Fatalf("after a failing hook the target holds rows: %v", err)
		}
		if _, err := src.CopyToThen(ctx, dst, EndLeases()); err != nil {
			t.Fatal(err)
		}
		got, err := dst.GetProject(ctx, p.ID)
		if err != nil || !got.LeaseUntil.IsZero() || got.RunToken != 1 {
			t.Fatalf("the copied project: lease %v token %d %v, want no lease and token 1", got.LeaseUntil, got.RunToken, err)
		}
		expired, err := dst.ExpiredLeases(ctx, dst.Now())
		if err != nil || len(expired) != 1 || expired[0] != p.ID {
			t.Errorf("expired leases in the target: %v %v, want %s", expired, err, p.ID)
		}
	})
}
