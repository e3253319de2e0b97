package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
)

// StorageExpired is the storageStatus of a project whose media were deleted
// at storageExpireAt: the project and its clips' metadata stay readable, the
// files and their addresses are gone.
const StorageExpired = "EXPIRED"

// storageUsedSQL sums an org's bytes: what its uploads hold, each
// project's storageSize (its source and renders), and each post's
// storage_size (its published copy, where that holds bytes of its own). An
// upload that a project with a storageSize imported is counted in that
// project, not twice.
const storageUsedSQL = `SELECT
	(SELECT COALESCE(SUM(u.received), 0) FROM uploads u WHERE u.org_id = ?1 AND ` + uploadNotInProjectSQL + `)
	+ (SELECT COALESCE(SUM(storage_size), 0) FROM projects WHERE org_id = ?1)
	+ (SELECT COALESCE(SUM(storage_size), 0) FROM posts WHERE org_id = ?1)`

// uploadNotInProjectSQL holds for an upload u whose bytes no project of its
// org counts: the one rule of the quota and of the metrics.
const uploadNotInProjectSQL = `NOT EXISTS (
		SELECT 1 FROM projects p WHERE p.source_id = u.id AND p.org_id = u.org_id AND p.storage_size > 0)`

// StorageUsed is the bytes the org keeps in uploads, project media and
// published copies of its clips.
func (s *Store) StorageUsed(ctx context.Context, orgID string) (int64, error) {
	return storageUsed(ctx, s.db, orgID)
}

func storageUsed(ctx context.Context, q querier, orgID string) (int64, error) {
	var n int64
	if err := q.QueryRowContext(ctx, storageUsedSQL, orgID).Scan(&n); err != nil {
		return 0, fmt.Errorf("storage used by org %s: %w", orgID, err)
	}
	return n, nil
}

// CheckStorage returns a *quota.StorageQuotaError when the org may not store
// adding more bytes under limit (<= 0: no quota; nothing is read).
func (s *Store) CheckStorage(ctx context.Context, orgID string, adding, limit int64) error {
	return checkStorage(ctx, s.db, orgID, adding, limit)
}

func checkStorage(ctx context.Context, q querier, orgID string, adding, limit int64) error {
	if limit <= 0 {
		return nil
	}
	used, err := storageUsed(ctx, q, orgID)
	if err != nil {
		return err
	}
	return quota.CheckStorage(used, adding, limit)
}

// expiredUploadsSQL lists the uploads created before ?1 that no project uses,
// at most ?2.
const expiredUploadsSQL = `SELECT ` + uploadColumns + ` FROM uploads u
	WHERE u.created_at < ? AND NOT EXISTS (SELECT 1 FROM projects p WHERE p.source_id = u.id AND p.org_id = u.org_id)
	ORDER BY u.created_at, u.id LIMIT ?`

// ExpiredUploads lists the uploads created before cutoff that no project
// uses: sessions never completed, and complete files no project was made
// from. Oldest first, at most limit.
func (s *Store) ExpiredUploads(ctx context.Context, cutoff time.Time, limit int) ([]*Upload, error) {
	ups, err := queryAll(ctx, s.db, scanUpload, expiredUploadsSQL, Timestamp(cutoff), limit)
	if err != nil {
		return nil, fmt.Errorf("expired uploads: %w", err)
	}
	return ups, nil
}

// deleteUploadSQL deletes upload ?1 if it was created before ?2 and no
// project uses it.
const deleteUploadSQL = `DELETE FROM uploads WHERE id = ? AND created_at < ?
	AND NOT EXISTS (SELECT 1 FROM projects p WHERE p.source_id = uploads.id AND p.org_id = uploads.org_id)`

// DeleteUpload removes the record of upload id if it is still expired at
// cutoff and unused; deleted says whether it did. The caller removes the
// file afterwards: a PUT still writing then finds its record gone.
func (s *Store) DeleteUpload(ctx context.Context, id string, cutoff time.Time) (deleted bool, err error) {
	res, err := s.db.ExecContext(ctx, deleteUploadSQL, id, Timestamp(cutoff))
	if err != nil {
		return false, fmt.Errorf("delete upload %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// ExpiredProjects lists the ids of projects whose storageExpireAt has passed
// at now and whose media are still kept, at most limit, oldest expiry first;
// a project without one never expires.
// Only ended projects (COMPLETE, or STALLED for good) are listed: a project
// still in work keeps its files until it ends.
func (s *Store) ExpiredProjects(ctx context.Context, now time.Time, limit int) ([]string, error) {
	ids, err := queryAll(ctx, s.db, scanString, `SELECT id FROM projects
		WHERE storage_expire_at != '' AND storage_expire_at <= ? AND storage_status != ?
		AND (stage = ? OR (stage = ? AND retry_at IS NULL))
		ORDER BY storage_expire_at, id LIMIT ?`,
		Timestamp(now), StorageExpired, apitypes.StageComplete, apitypes.StageStalled, limit)
	if err != nil {
		return nil, fmt.Errorf("expired projects: %w", err)
	}
	return ids, nil
}

// ExpireProjectMedia records that project id's media are deleted: its
// storageStatus becomes EXPIRED and its storageSize 0, its clips keep their
// metadata but no longer hand out addresses, its posts' published copies
// (which the caller deleted with the media) count nothing, and the uploads it was made
// from, which no other project with kept media uses, are returned for the
// caller to delete (their records are gone when this returns). The caller
// deletes the files first, so a crash in between leaves the project to be
// expired again.
func (s *Store) ExpireProjectMedia(ctx context.Context, id string) (uploads []*Upload, err error) {
	err = s.tx(ctx, func(tx *sql.Tx) error {
		now := Timestamp(s.Now())
		if _, err := tx.ExecContext(ctx, `UPDATE projects SET storage_status = ?, storage_size = 0, updated_at = ? WHERE id = ?`,
			StorageExpired, now, id); err != nil {
			return fmt.Errorf("expire project %s: %w", id, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE clips SET uri_for_preview = '', uri_for_export = '', storage_used = 0, updated_at = ?
			WHERE project_id = ?`, now, id); err != nil {
			return fmt.Errorf("expire clips of project %s: %w", id, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE posts SET storage_size = 0 WHERE project_id = ? AND storage_size != 0`, id); err != nil {
			return fmt.Errorf("expire published copies of project %s: %w", id, err)
		}
		uploads, err = queryAll(ctx, tx, scanUpload, `SELECT `+uploadColumns+` FROM uploads u
			WHERE u.id = (SELECT source_id FROM projects WHERE id = ?1)
			AND NOT EXISTS (SELECT 1 FROM projects p WHERE p.source_id = u.id AND p.id != ?1 AND p.storage_status != ?2)`, id, StorageExpired)
		if err != nil {
			return fmt.Errorf("uploads of project %s: %w", id, err)
		}
		for _, u := range uploads {
			if _, err := tx.ExecContext(ctx, `DELETE FROM uploads WHERE id = ?`, u.ID); err != nil {
				return fmt.Errorf("delete upload %s: %w", u.ID, err)
			}
		}
		return nil
	})
	return uploads, err
}
