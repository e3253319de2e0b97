package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// Clips are stored in columns of the clips table; clipValues and scanClip
// are the one mapping between a row and the API's exportable clip. The
// time ranges, keywords and render preferences are JSON documents.

const clipColumns = `id, project_id, org_id, seq, curation_id, run_id, user_id, uri_for_preview, uri_for_export,
	storage_used, duration_ms, time_ranges, keywords, prompt_name, title, description, hashtags, text,
	genre, subgenre, product_tier, render_pref, created_at, updated_at`

// clipValues are c's column values, in clipColumns order, as clip number
// seq of its project.
func clipValues(c *apitypes.ExportableClip, seq int) ([]any, error) {
	ranges, err := json.Marshal(c.TimeRanges)
	if err != nil {
		return nil, err
	}
	keywords, err := json.Marshal(c.Keywords)
	if err != nil {
		return nil, err
	}
	var pref []byte
	if c.RenderPref != nil {
		if pref, err = json.Marshal(c.RenderPref); err != nil {
			return nil, err
		}
	}
	return []any{c.ID, c.ProjectID, c.OrgID, seq, c.CurationID, c.RunID, c.UserID, c.URIForPreview, c.URIForExport,
		c.StorageUsed, c.DurationMs, string(ranges), string(keywords), c.PromptName, c.Title, c.Description, c.Hashtags, c.Text,
		c.Genre, c.Subgenre, c.ProductTier, nullString(string(pref)), c.CreatedAt, c.UpdatedAt}, nil
}

func scanClip(row scanner) (apitypes.ExportableClip, error) {
	var c apitypes.ExportableClip
	var seq int
	var ranges, keywords string
	var pref sql.NullString
	err := row.Scan(&c.ID, &c.ProjectID, &c.OrgID, &seq, &c.CurationID, &c.RunID, &c.UserID, &c.URIForPreview, &c.URIForExport,
		&c.StorageUsed, &c.DurationMs, &ranges, &keywords, &c.PromptName, &c.Title, &c.Description, &c.Hashtags, &c.Text,
		&c.Genre, &c.Subgenre, &c.ProductTier, &pref, &c.CreatedAt, &c.UpdatedAt)
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal([]byte(ranges), &c.TimeRanges); err != nil {
		return c, fmt.Errorf("decode time ranges of clip %s: %w", c.ID, err)
	}
	if err := json.Unmarshal([]byte(keywords), &c.Keywords); err != nil {
		return c, fmt.Errorf("decode keywords of clip %s: %w", c.ID, err)
	}
	if pref.Valid {
		c.RenderPref = new(apitypes.RenderPref)
		if err := json.Unmarshal([]byte(pref.String), c.RenderPref); err != nil {
			return c, fmt.Errorf("decode render preferences of clip %s: %w", c.ID, err)
		}
	}
	return c, nil
}

// insertClip stores c as clip number seq of its project.
func insertClip(ctx context.Context, q execer, c *apitypes.ExportableClip, seq int) error {
	vals, err := clipValues(c, seq)
	if err != nil {
		return fmt.Errorf("encode clip %s: %w", c.ID, err)
	}
	if _, err := q.ExecContext(ctx, `INSERT INTO clips(`+clipColumns+`) VALUES (`+placeholders(len(vals))+`)`, vals...); err != nil {
		return fmt.Errorf("insert clip %s: %w", c.ID, err)
	}
	return nil
}

// ReplaceClips sets the exportable clips of a project, in order, replacing
// any from an earlier attempt. Each clip's projectId and orgId are the
// project's.
func (s *Store) ReplaceClips(ctx context.Context, projectID, orgID string, clips []apitypes.ExportableClip) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return replaceClips(ctx, tx, projectID, orgID, clips) })
}

func replaceClips(ctx context.Context, tx *sql.Tx, projectID, orgID string, clips []apitypes.ExportableClip) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM clips WHERE project_id = ?`, projectID); err != nil {
		return fmt.Errorf("clear clips: %w", err)
	}
	for i := range clips {
		c := clips[i]
		c.ProjectID, c.OrgID = projectID, orgID
		if err := insertClip(ctx, tx, &c, i); err != nil {
			return err
		}
	}
	return nil
}

// ListClips returns up to limit clips of a project after skipping offset.
func (s *Store) ListClips(ctx context.Context, projectID string, offset, limit int) ([]apitypes.ExportableClip, error) {
	clips, err := queryAll(ctx, s.db, scanClip, `SELECT `+clipColumns+` FROM clips WHERE project_id = ? ORDER BY seq LIMIT ? OFFSET ?`,
		projectID, limit, offset)
	if err != nil {
		return nil, fmt.Errorf("list clips: %w", err)
	}
	return clips, nil
}

// GetClip returns the exportable clip with the composite id
// {projectId}.{curationId}; ErrNotFound when absent. Callers serving an org
// check OrgID themselves.
func (s *Store) GetClip(ctx context.Context, id string) (*apitypes.ExportableClip, error) {
	c, err := queryOne(ctx, s.db, scanClip, `SELECT `+clipColumns+` FROM clips WHERE id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("get clip %s: %w", id, err)
	}
	return &c, nil
}
