package store

import (
	"context"
	"fmt"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
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
	p, err := scanProject(countingScanner{row: row, count: &count})
	return ProjectSummary{Project: p, ClipCount: count}, err
}

// countingScanner scans a project row followed by one more column, the
// clip count, so scanProject stays the one reader of project columns.
type countingScanner struct {
	row   scanner
	count *int
}

func (c countingScanner) Scan(dest ...any) error { return c.row.Scan(append(dest, c.count)...) }

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
// the org's collections holding it, in collection creation order.
func (s *Store) ClipCollections(ctx context.Context, orgID, projectID string) (map[string][]apitypes.Collection, error) {
	type held struct {
		contentID  string
		collection apitypes.Collection
	}
	rows, err := queryAll(ctx, s.db, func(row scanner) (held, error) {
		var h held
		err := row.Scan(&h.contentID, &h.collection.CollectionID, &h.collection.CollectionName,
			&h.collection.CreatedAt, &h.collection.UpdatedAt)
		return h, err
	}, `SELECT cc.content_id, c.id, c.name, c.created_at, c.updated_at FROM collection_contents cc
		JOIN collections c ON c.id = cc.collection_id
		JOIN clips k ON k.id = cc.content_id
		WHERE c.org_id = ? AND k.project_id = ? ORDER BY c.seq`, orgID, projectID)
	if err != nil {
		return nil, fmt.Errorf("collections of the clips of %s: %w", projectID, err)
	}
	out := map[string][]apitypes.Collection{}
	for _, h := range rows {
		out[h.contentID] = append(out[h.contentID], h.collection)
	}
	return out, nil
}

// OrgSchedules returns up to limit of the org's publish schedules with
// status (SchedulePending, ScheduleFired, ScheduleCancelled): pending ones
// earliest first, the others latest first.
func (s *Store) OrgSchedules(ctx context.Context, orgID, status string, limit int) ([]Schedule, error) {
	order := `publish_at DESC, rowid DESC`
	if status == SchedulePending {
		order = `publish_at, rowid`
	}
	list, err := queryAll(ctx, s.db, scanSchedule, `SELECT `+scheduleColumns+` FROM publish_schedules
		WHERE org_id = ? AND status = ? ORDER BY `+order+` LIMIT ?`, orgID, status, limit)
	if err != nil {
		return nil, fmt.Errorf("list %s schedules of %s: %w", status, orgID, err)
	}
	return list, nil
}

// OrgKeys lists the org's API keys, oldest first. The gallery finds the
// key of a session among them.
func (s *Store) OrgKeys(ctx context.Context, orgID string) ([]Key, error) {
	keys, err := queryAll(ctx, s.db, func(row scanner) (Key, error) {
		k := Key{OrgID: orgID}
		err := row.Scan(&k.Key, &k.UserID)
		return k, err
	}, `SELECT key, user_id FROM api_keys WHERE org_id = ? ORDER BY seq`, orgID)
	if err != nil {
		return nil, fmt.Errorf("keys of %s: %w", orgID, err)
	}
	return keys, nil
}
