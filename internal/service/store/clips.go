package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// Clips are stored in columns of the clips table; clipValues and scanClip
// map a row to a Clip and back, Clip.API a Clip to the API's exportable
// clip. The time ranges, keywords and render preferences are JSON
// documents.

// Clip is a clip record (the API's apitypes.ExportableClip is its JSON
// shape, with the times as text).
type Clip struct {
	ID            string
	ProjectID     string
	CurationID    string
	RunID         string
	OrgID         string
	UserID        string
	URIForPreview string // unsigned, relative to the public URL (medialink.Path)
	URIForExport  string
	StorageUsed   int64
	DurationMs    int64
	TimeRanges    [][2]int64
	Keywords      []string
	PromptName    string
	Title         string
	Description   string
	Hashtags      string
	Text          string
	Genre         string
	Subgenre      string
	CreatedAt     time.Time
	UpdatedAt     time.Time
	ProductTier   string
	RenderPref    *apitypes.RenderPref
}

// API is the clip as the API answers it, its times in the spec's format
// (as stored: a zero time, which no render makes, stays "").
func (c Clip) API() apitypes.ExportableClip {
	return apitypes.ExportableClip{
		ID: c.ID, ProjectID: c.ProjectID, CurationID: c.CurationID, RunID: c.RunID, OrgID: c.OrgID, UserID: c.UserID,
		URIForPreview: c.URIForPreview, URIForExport: c.URIForExport, StorageUsed: c.StorageUsed, DurationMs: c.DurationMs,
		TimeRanges: c.TimeRanges, Keywords: c.Keywords, PromptName: c.PromptName, Title: c.Title, Description: c.Description,
		Hashtags: c.Hashtags, Text: c.Text, Genre: c.Genre, Subgenre: c.Subgenre,
		CreatedAt: timeText(c.CreatedAt), UpdatedAt: timeText(c.UpdatedAt), ProductTier: c.ProductTier, RenderPref: c.RenderPref,
	}
}

// Version names the clip's current version, its updatedAt as stored: a
// copy job's ClipVersion, which a cached copy must equal.
func (c Clip) Version() string { return timeText(c.UpdatedAt) }

const clipColumns = `id, project_id, org_id, seq, curation_id, run_id, user_id, uri_for_preview, uri_for_export,
	storage_used, duration_ms, time_ranges, keywords, prompt_name, title, description, hashtags, text,
	genre, subgenre, product_tier, render_pref, created_at, updated_at`

// clipValues are c's column values, in clipColumns order, as clip number
// seq of its project.
func clipValues(c *Clip, seq int) ([]any, error) {
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
		c.Genre, c.Subgenre, c.ProductTier, nullString(string(pref)), timeText(c.CreatedAt), timeText(c.UpdatedAt)}, nil
}

func scanClip(row scanner) (Clip, error) {
	var c Clip
	var seq int
	var ranges, keywords string
	var pref sql.NullString
	err := row.Scan(&c.ID, &c.ProjectID, &c.OrgID, &seq, &c.CurationID, &c.RunID, &c.UserID, &c.URIForPreview, &c.URIForExport,
		&c.StorageUsed, &c.DurationMs, &ranges, &keywords, &c.PromptName, &c.Title, &c.Description, &c.Hashtags, &c.Text,
		&c.Genre, &c.Subgenre, &c.ProductTier, &pref, timeCol{&c.CreatedAt}, timeCol{&c.UpdatedAt})
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
func insertClip(ctx context.Context, q execer, c *Clip, seq int) error {
	vals, err := clipValues(c, seq)
	if err != nil {
		return fmt.Errorf("encode clip %s: %w", c.ID, err)
	}
	if _, err := q.ExecContext(ctx, `INSERT INTO clips(`+clipColumns+`) VALUES (`+placeholders(len(vals))+`)`, vals...); err != nil {
		return fmt.Errorf("insert clip %s: %w", c.ID, err)
	}
	return nil
}

// ReplaceClips sets the clips of a project, in order, replacing
// any from an earlier attempt. Each clip's projectId and orgId are the
// project's.
func (s *Store) ReplaceClips(ctx context.Context, projectID, orgID string, clips []Clip) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return replaceClips(ctx, tx, projectID, orgID, clips) })
}

func replaceClips(ctx context.Context, tx *sql.Tx, projectID, orgID string, clips []Clip) error {
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
func (s *Store) ListClips(ctx context.Context, projectID string, offset, limit int) ([]Clip, error) {
	clips, err := queryAll(ctx, s.db, scanClip, `SELECT `+clipColumns+` FROM clips WHERE project_id = ? ORDER BY seq LIMIT ? OFFSET ?`,
		projectID, limit, offset)
	if err != nil {
		return nil, fmt.Errorf("list clips: %w", err)
	}
	return clips, nil
}

// GetClip returns the clip with the composite id
// {projectId}.{curationId}; ErrNotFound when absent. Callers serving an org
// check OrgID themselves.
func (s *Store) GetClip(ctx context.Context, id string) (*Clip, error) {
	c, err := queryOne(ctx, s.db, scanClip, `SELECT `+clipColumns+` FROM clips WHERE id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("get clip %s: %w", id, err)
	}
	return &c, nil
}
