package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// The reads of the gallery (package gallery): an organization's projects
// with their clip counts, the collections of a project's clips and the
// organization's publish schedules. Every one is scoped to the org.

// ProjectSummary is a project as the gallery lists it: the record and how
// many clips it has.
type ProjectSummary struct {
	*Project
	ClipCount int
}

// projectSummarySelect reads projectColumns of p and the clip count.
const projectSummarySelect = `SELECT ` + projectColumns + `,
	(SELECT COUNT(*) FROM clips c WHERE c.project_id = p.id) FROM projects p`

func scanProjectSummary(row scanner) (ProjectSummary, error) {
	var count int
	p, err := scanProject(trailingScanner{row: row, extra: []any{&count}})
	return ProjectSummary{Project: p, ClipCount: count}, err
}

// OrgProjects returns up to limit of the org's projects after skipping
// offset, newest first, and how many it has in all.
func (s *Store) OrgProjects(ctx context.Context, orgID string, offset, limit int) ([]ProjectSummary, int, error) {
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM projects WHERE org_id = ?`, orgID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count projects: %w", err)
	}
	list, err := queryAll(ctx, s.db, scanProjectSummary, projectSummarySelect+`
		WHERE p.org_id = ? ORDER BY p.created_at DESC, p.rowid DESC LIMIT ? OFFSET ?`, orgID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("list projects of %s: %w", orgID, err)
	}
	return list, total, nil
}

// OrgProjectsByID returns those of the projects ids that belong to the org
// (others are left out, as if missing), in no particular order.
func (s *Store) OrgProjectsByID(ctx context.Context, orgID string, ids []string) ([]ProjectSummary, error) {
	if len(ids) == 0 {
		return []ProjectSummary{}, nil
	}
	list, err := queryAll(ctx, s.db, scanProjectSummary, projectSummarySelect+`
		WHERE p.org_id = ? AND p.id IN (`+placeholders(len(ids))+`)`, append([]any{orgID}, anySlice(ids)...)...)
	if err != nil {
		return nil, fmt.Errorf("read projects of %s: %w", orgID, err)
	}
	return list, nil
}

// ClipCollections maps the composite id of each clip of the project to
// the org's collections holding it, in collection creation order. It
// starts from the project's clips (clips_project) and finds their
// collections through collection_contents_content, so it reads only what
// the project's clips are in, however many collections the org has.
func (s *Store) ClipCollections(ctx context.Context, orgID, projectID string) (map[string][]Collection, error) {
	type held struct {
		contentID  string
		collection Collection
	}
	rows, err := queryAll(ctx, s.db, func(row scanner) (held, error) {
		var h held
		var created, updated string
		err := row.Scan(&h.contentID, &h.collection.CollectionID, &h.collection.CollectionName, &created, &updated)
		h.collection.CreatedAt, h.collection.UpdatedAt = parseTimestamp(created), parseTimestamp(updated)
		return h, err
	}, clipCollectionsQuery, projectID, orgID)
	if err != nil {
		return nil, fmt.Errorf("collections of the clips of %s: %w", projectID, err)
	}
	out := map[string][]Collection{}
	for _, h := range rows {
		out[h.contentID] = append(out[h.contentID], h.collection)
	}
	return out, nil
}

// clipCollectionsQuery is the read of ClipCollections; CROSS JOIN keeps
// SQLite from reordering the tables (a store test checks its plan).
const clipCollectionsQuery = `SELECT cc.content_id, c.id, c.name, c.created_at, c.updated_at FROM clips k
		CROSS JOIN collection_contents cc ON cc.content_id = k.id
		CROSS JOIN collections c ON c.id = cc.collection_id
		WHERE k.project_id = ? AND c.org_id = ? ORDER BY c.seq`

// CollectionClip is a clip as the gallery's collections page lists it.
type CollectionClip struct {
	ID, ProjectID, CurationID, Title string
}

// CollectionWithClips is a collection and its clips in the order they
// were added.
type CollectionWithClips struct {
	Collection
	Clips []CollectionClip
}

// OrgCollectionsWithClips returns up to limit of the org's collections
// after skipping offset, oldest first, each with its clips, and how many
// collections the org has: one query for the page, not one per collection.
func (s *Store) OrgCollectionsWithClips(ctx context.Context, orgID string, offset, limit int) ([]CollectionWithClips, int, error) {
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM collections WHERE org_id = ?`, orgID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count collections: %w", err)
	}
	type row struct {
		collection Collection
		clip       CollectionClip
		hasClip    bool
	}
	rows, err := queryAll(ctx, s.db, func(sc scanner) (row, error) {
		var r row
		var id, project, curation, title sql.NullString
		var created, updated string
		err := sc.Scan(&r.collection.CollectionID, &r.collection.CollectionName, &created, &updated, &id, &project, &curation, &title)
		r.collection.CreatedAt, r.collection.UpdatedAt = parseTimestamp(created), parseTimestamp(updated)
		r.clip, r.hasClip = CollectionClip{ID: id.String, ProjectID: project.String, CurationID: curation.String, Title: title.String}, id.Valid
		return r, err
	}, `SELECT c.id, c.name, c.created_at, c.updated_at, k.id, k.project_id, k.curation_id, k.title
		FROM (SELECT id, name, created_at, updated_at, seq FROM collections WHERE org_id = ? ORDER BY seq LIMIT ? OFFSET ?) c
		LEFT JOIN collection_contents cc ON cc.collection_id = c.id
		LEFT JOIN clips k ON k.id = cc.content_id
		ORDER BY c.seq, cc.seq`, orgID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("collections of %s with their clips: %w", orgID, err)
	}
	var out []CollectionWithClips
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1].CollectionID != r.collection.CollectionID {
			out = append(out, CollectionWithClips{Collection: r.collection})
		}
		if r.hasClip {
			last := &out[len(out)-1]
			last.Clips = append(last.Clips, r.clip)
		}
	}
	return out, total, nil
}

// ScheduleWithPost is a publish schedule and, once fired, its post.
type ScheduleWithPost struct {
	Schedule
	Post *PostOutcome // nil: none (yet)
}

// PostOutcome is where a fired schedule's post went and how it fared.
type PostOutcome struct {
	ID, PublishTo, Status, LastError, Location string
	PublishedAt                                time.Time
}

// OrgSchedules returns up to limit of the org's publish schedules with
// status (SchedulePending, ScheduleFired, ScheduleCancelled), each with its
// post: pending ones earliest first, the others latest first. It reads
// through publish_schedules_org_status and joins the posts in the same
// query.
func (s *Store) OrgSchedules(ctx context.Context, orgID, status string, limit int) ([]ScheduleWithPost, error) {
	list, err := queryAll(ctx, s.db, scanScheduleWithPost, orgSchedulesQuery(status), orgID, status, limit)
	if err != nil {
		return nil, fmt.Errorf("list %s schedules of %s: %w", status, orgID, err)
	}
	return list, nil
}

func orgSchedulesQuery(status string) string {
	order := `s.publish_at DESC, s.rowid DESC`
	if status == SchedulePending {
		order = `s.publish_at, s.rowid`
	}
	return `SELECT ` + qualified(scheduleColumns, "s") + `, p.id, p.publish_to, p.status, p.last_error, p.location, p.published_at
		FROM publish_schedules s LEFT JOIN posts p ON p.id = s.post_id
		WHERE s.org_id = ? AND s.status = ? ORDER BY ` + order + ` LIMIT ?`
}

// scanScheduleWithPost scans a schedule row followed by the columns of its
// post, so scanSchedule stays the one reader of schedule columns.
func scanScheduleWithPost(row scanner) (ScheduleWithPost, error) {
	var id, publishTo, status, lastError, location, published sql.NullString
	sc, err := scanSchedule(trailingScanner{row: row, extra: []any{&id, &publishTo, &status, &lastError, &location, &published}})
	out := ScheduleWithPost{Schedule: sc}
	if err == nil && id.Valid {
		out.Post = &PostOutcome{ID: id.String, PublishTo: publishTo.String, Status: status.String, LastError: lastError.String,
			Location: location.String, PublishedAt: parseTimestamp(published.String)}
	}
	return out, err
}

// trailingScanner scans a row with extra columns after those its reader
// asks for (a project's clip count, a schedule's post), so each record
// keeps one reader of its columns.
type trailingScanner struct {
	row   scanner
	extra []any
}

func (t trailingScanner) Scan(dest ...any) error { return t.row.Scan(append(dest, t.extra...)...) }
