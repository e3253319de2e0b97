package store

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestOrgProjectsNewestFirstWithClipCounts(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		var ids []string
		for range 3 {
			p := newProject("org")
			p.CreatedAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // the same millisecond: insertion order decides
			if err := s.CreateProject(ctx, p, Admission{}); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
		}
		if err := s.CreateProject(ctx, newProject("other"), Admission{}); err != nil {
			t.Fatal(err)
		}
		if err := s.ReplaceClips(ctx, ids[0], "org", []Clip{{ID: ids[0] + ".a"}, {ID: ids[0] + ".b"}}); err != nil {
			t.Fatal(err)
		}
		page, total, err := s.OrgProjects(ctx, "org", 1, 5)
		if err != nil {
			t.Fatal(err)
		}
		if total != 3 || len(page) != 2 || page[0].ID != ids[1] || page[1].ID != ids[0] || page[1].ClipCount != 2 || page[0].ClipCount != 0 {
			t.Fatalf("page after 1 of %v: total %d, %+v", ids, total, page)
		}
		byID, err := s.OrgProjectsByID(ctx, "other", ids)
		if err != nil || len(byID) != 0 {
			t.Fatalf("another org's ids: %v, %v", byID, err)
		}
	})
}

func TestRevokeKey(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		key, err := s.CreateKey(ctx, "org", "u")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.RevokeKey(ctx, KeyHash(key)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.LookupKey(ctx, key); !errors.Is(err, ErrNotFound) {
			t.Fatalf("lookup of a revoked key: %v", err)
		}
		if err := s.RevokeKey(ctx, KeyHash(key)); !errors.Is(err, ErrNotFound) {
			t.Fatalf("revoking again: %v, want ErrNotFound", err)
		}
	})
}

// queryPlan is SQLite's plan of query with args, its details joined by
// newlines.
func queryPlan(t *testing.T, s *Store, query string, args ...any) string {
	t.Helper()
	rows, err := s.db.Query(`EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rows.Close() }()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

func TestGalleryReadsUseTheirIndexes(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	for name, c := range map[string]struct {
		query   string
		args    []any
		want    []string
		notWant []string
	}{
		"project list": {
			query: projectSummarySelect + ` WHERE p.org_id = ? ORDER BY p.created_at DESC, p.rowid DESC LIMIT ? OFFSET ?`,
			args:  []any{"org", 50, 0}, want: []string{"USING INDEX projects_org_created"}, notWant: []string{"TEMP B-TREE"},
		},
		"fired schedules": {
			query: orgSchedulesQuery(ScheduleFired), args: []any{"org", ScheduleFired, 200},
			want: []string{"USING INDEX publish_schedules_org_status", "SEARCH p USING INDEX sqlite_autoindex_posts_1"}, notWant: []string{"TEMP B-TREE"},
		},
		"pending schedules": {
			query: orgSchedulesQuery(SchedulePending), args: []any{"org", SchedulePending, 200},
			want: []string{"USING INDEX publish_schedules_org_status"}, notWant: []string{"TEMP B-TREE"},
		},
		"clip collections": {
			query: clipCollectionsQuery, args: []any{"p", "org"},
			want: []string{"SEARCH k USING INDEX clips_project", "cc USING INDEX collection_contents_content"},
		},
	} {
		plan := queryPlan(t, s, c.query, c.args...)
		for _, w := range c.want {
			if !strings.Contains(plan, w) {
				t.Errorf("%s: the plan lacks %q:\n%s", name, w, plan)
			}
		}
		for _, w := range c.notWant {
			if strings.Contains(plan, w) {
				t.Errorf("%s: the plan has %q:\n%s", name, w, plan)
			}
		}
	}
}

func TestOrgCollectionsWithClipsPagesCollectionsInOrder(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		p := newProject("org")
		if err := s.CreateProject(ctx, p, Admission{}); err != nil {
			t.Fatal(err)
		}
		if err := s.ReplaceClips(ctx, p.ID, "org", []Clip{
			{ID: p.ID + ".a", CurationID: "a", Title: "A", Text: "a long transcript"}, {ID: p.ID + ".b", CurationID: "b", Title: "B"},
		}); err != nil {
			t.Fatal(err)
		}
		var cols []Collection
		for _, name := range []string{"first", "empty", "third"} {
			c, err := s.CreateCollection(ctx, "org", name, 0)
			if err != nil {
				t.Fatal(err)
			}
			cols = append(cols, c)
		}
		if _, err := s.CreateCollection(ctx, "other", "theirs", 0); err != nil {
			t.Fatal(err)
		}
		for _, add := range [][2]string{{cols[0].CollectionID, p.ID + ".b"}, {cols[0].CollectionID, p.ID + ".a"}, {cols[2].CollectionID, p.ID + ".a"}} {
			if err := s.AddCollectionContent(ctx, "org", add[0], add[1]); err != nil {
				t.Fatal(err)
			}
		}
		page, total, err := s.OrgCollectionsWithClips(ctx, "org", 0, 2)
		if err != nil {
			t.Fatal(err)
		}
		if total != 3 || len(page) != 2 || page[0].CollectionName != "first" || page[1].CollectionName != "empty" || len(page[1].Clips) != 0 {
			t.Fatalf("first page: total %d, %+v", total, page)
		}
		want := []CollectionClip{{ID: p.ID + ".b", ProjectID: p.ID, CurationID: "b", Title: "B"}, {ID: p.ID + ".a", ProjectID: p.ID, CurationID: "a", Title: "A"}}
		if !slices.Equal(page[0].Clips, want) {
			t.Errorf("clips of the first collection %+v, want %+v in the order added", page[0].Clips, want)
		}
		rest, _, err := s.OrgCollectionsWithClips(ctx, "org", 2, 2)
		if err != nil || len(rest) != 1 || rest[0].CollectionName != "third" || len(rest[0].Clips) != 1 {
			t.Fatalf("second page: %+v, %v", rest, err)
		}
	})
}

// TestUploadUsedByProjectSearchesBySourceAndOrg: the NOT EXISTS subqueries
// that ask whether a project uses an upload must look projects up by
// (source_id, org_id); with projects_org_created chosen instead, one org's
// thousands of projects were scanned for every upload.
func TestUploadUsedByProjectSearchesBySourceAndOrg(t *testing.T) {
	t.Parallel()
	s, _ := openTest(t)
	// "USING INDEX" or "USING COVERING INDEX", as the subquery's columns allow.
	const bySourceAndOrg = "INDEX projects_source_org (source_id=? AND org_id=?)"
	for name, c := range map[string]struct {
		query string
		args  []any
	}{
		"storage used":     {query: storageUsedSQL, args: []any{"org"}},
		"stats":            {query: statsTotalsSQL, args: []any{"2026-01"}},
		"expired uploads":  {query: expiredUploadsSQL, args: []any{"2026-01-01T00:00:00.000Z", 10}},
		"delete an upload": {query: deleteUploadSQL, args: []any{"u", "2026-01-01T00:00:00.000Z"}},
	} {
		plan := queryPlan(t, s, c.query, c.args...)
		if !strings.Contains(plan, "SEARCH p USING ") || !strings.Contains(plan, bySourceAndOrg) {
			t.Errorf("%s: the plan lacks %q:\n%s", name, bySourceAndOrg, plan)
		}
	}
}
