package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// ReplaceClips sets the exportable clips of a project, in order, replacing
// any from an earlier attempt.
func (s *Store) ReplaceClips(ctx context.Context, projectID, orgID string, clips []apitypes.ExportableClip) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM clips WHERE project_id = ?`, projectID); err != nil {
			return fmt.Errorf("clear clips: %w", err)
		}
		for i, c := range clips {
			data, err := json.Marshal(c)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO clips(id, project_id, org_id, seq, data) VALUES (?, ?, ?, ?, ?)`,
				c.ID, projectID, orgID, i, string(data)); err != nil {
				return fmt.Errorf("insert clip %s: %w", c.ID, err)
			}
		}
		return nil
	})
}

// ListClips returns up to limit clips of a project after skipping offset.
func (s *Store) ListClips(ctx context.Context, projectID string, offset, limit int) ([]apitypes.ExportableClip, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT data FROM clips WHERE project_id = ? ORDER BY seq LIMIT ? OFFSET ?`, projectID, limit, offset)
	if err != nil {
		return nil, fmt.Errorf("list clips: %w", err)
	}
	defer rows.Close()
	out := []apitypes.ExportableClip{}
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return nil, err
		}
		var c apitypes.ExportableClip
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
