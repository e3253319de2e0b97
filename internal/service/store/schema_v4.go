package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// Migration 4 moves projects, clips, social accounts and brand templates
// out of JSON blobs written in the API's shape (where renaming a JSON tag
// silently changed what was stored, and queries filtered with json_extract
// on wire names) into columns the store owns. The blobs are decoded with
// the frozen v3 shapes below, never with today's API types, so this step
// reads old data the same way however the API changes later.

const schemaV4 = `
CREATE TABLE projects_v4 (
	id TEXT PRIMARY KEY,
	org_id TEXT NOT NULL,
	user_id TEXT NOT NULL,
	stage TEXT NOT NULL,
	visibility TEXT NOT NULL,
	source_platform TEXT NOT NULL,
	source_id TEXT NOT NULL,
	video_url TEXT NOT NULL,
	model TEXT,
	brand_template_id TEXT,
	product_tier TEXT NOT NULL,
	storage_size INTEGER NOT NULL,
	storage_status TEXT NOT NULL,
	storage_expire_at TEXT NOT NULL,
	error TEXT,
	stall_count INTEGER,
	failure_stalls INTEGER NOT NULL,
	retry_at TEXT,
	refund_status TEXT,
	credits_charged INTEGER NOT NULL,
	source_path TEXT NOT NULL,
	source_duration_sec REAL NOT NULL,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL,
	prefs TEXT NOT NULL
);
CREATE TABLE clips_v4 (
	id TEXT PRIMARY KEY,
	project_id TEXT NOT NULL,
	org_id TEXT NOT NULL,
	seq INTEGER NOT NULL,
	curation_id TEXT NOT NULL,
	run_id TEXT NOT NULL,
	user_id TEXT NOT NULL,
	uri_for_preview TEXT NOT NULL,
	uri_for_export TEXT NOT NULL,
	storage_used INTEGER NOT NULL,
	duration_ms INTEGER NOT NULL,
	time_ranges TEXT NOT NULL,
	keywords TEXT NOT NULL,
	prompt_name TEXT NOT NULL,
	title TEXT NOT NULL,
	description TEXT NOT NULL,
	hashtags TEXT NOT NULL,
	text TEXT NOT NULL,
	genre TEXT NOT NULL,
	subgenre TEXT NOT NULL,
	product_tier TEXT NOT NULL,
	render_pref TEXT,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
CREATE TABLE social_accounts_v4 (
	post_account_id TEXT PRIMARY KEY,
	org_id TEXT NOT NULL,
	platform TEXT NOT NULL,
	created_at TEXT NOT NULL,
	sub_account_id TEXT NOT NULL,
	ext_user_id TEXT NOT NULL,
	ext_user_name TEXT NOT NULL,
	ext_user_picture_link TEXT NOT NULL,
	ext_user_profile_link TEXT NOT NULL
);
CREATE TABLE brand_templates_v4 (
	id TEXT PRIMARY KEY,
	org_id TEXT NOT NULL,
	name TEXT NOT NULL,
	is_default INTEGER NOT NULL,
	type TEXT NOT NULL,
	preferences TEXT
);`

// indexesV4 are created once the new tables have their final names.
const indexesV4 = `
CREATE INDEX projects_org_stage ON projects(org_id, stage);
CREATE INDEX projects_stage ON projects(stage, created_at);
CREATE INDEX projects_retry ON projects(retry_at) WHERE retry_at IS NOT NULL;
CREATE INDEX clips_project ON clips(project_id, seq);
CREATE INDEX social_accounts_org ON social_accounts(org_id, platform);
CREATE INDEX brand_templates_org ON brand_templates(org_id);`

// projectV3 is a project blob as migrations 1-3 stored it.
type projectV3 struct {
	ID                string          `json:"id"`
	UserID            string          `json:"userId"`
	OrgID             string          `json:"orgId"`
	SourcePlatform    string          `json:"sourcePlatform"`
	SourceID          string          `json:"sourceId"`
	ProductTier       string          `json:"productTier"`
	Stage             string          `json:"stage"`
	StorageSize       int64           `json:"storageSize"`
	StorageStatus     string          `json:"storageStatus"`
	StorageExpireAt   string          `json:"storageExpireAt"`
	CreatedAt         string          `json:"createdAt"`
	UpdatedAt         string          `json:"updatedAt"`
	Visibility        string          `json:"visibility"`
	SourceURI         *string         `json:"sourceUri"`
	Model             *string         `json:"model"`
	Error             *string         `json:"error"`
	StallCount        *int64          `json:"stallCount"`
	RefundStatus      *string         `json:"refundStatus"`
	BrandTemplateID   *string         `json:"brandTemplateId"`
	CurationPref      json.RawMessage `json:"curationPref"`
	RenderPref        json.RawMessage `json:"renderPref"`
	ImportPref        json.RawMessage `json:"importPref"`
	UploadedVideoAttr json.RawMessage `json:"uploadedVideoAttr"`
	ConclusionActions json.RawMessage `json:"conclusionActions"`
	Request           struct {
		VideoURL string `json:"videoUrl"`
	} `json:"request"`
	SourcePath        string  `json:"sourcePath"`
	SourceDurationSec float64 `json:"sourceDurationSec"`
	CreditsCharged    int64   `json:"creditsCharged"`
	RetryAt           string  `json:"retryAt"`
	FailureStalls     int64   `json:"failureStalls"`
}

// clipV3 is a clip blob as migrations 1-3 stored it.
type clipV3 struct {
	ID            string          `json:"id"`
	CurationID    string          `json:"curationId"`
	RunID         string          `json:"runId"`
	UserID        string          `json:"userId"`
	URIForPreview string          `json:"uriForPreview"`
	URIForExport  string          `json:"uriForExport"`
	StorageUsed   int64           `json:"storageUsed"`
	DurationMs    int64           `json:"durationMs"`
	TimeRanges    json.RawMessage `json:"timeRanges"`
	Keywords      json.RawMessage `json:"keywords"`
	PromptName    string          `json:"promptName"`
	Title         string          `json:"title"`
	Description   string          `json:"description"`
	Hashtags      string          `json:"hashtags"`
	Text          string          `json:"text"`
	Genre         string          `json:"genre"`
	Subgenre      string          `json:"subgenre"`
	CreatedAt     string          `json:"createdAt"`
	UpdatedAt     string          `json:"updatedAt"`
	ProductTier   string          `json:"productTier"`
	RenderPref    json.RawMessage `json:"renderPref"`
}

// socialAccountV3 is a social account blob as migration 2 stored it.
type socialAccountV3 struct {
	SubAccountID       string `json:"subAccountId"`
	ExtUserID          string `json:"extUserId"`
	ExtUserName        string `json:"extUserName"`
	ExtUserPictureLink string `json:"extUserPictureLink"`
	ExtUserProfileLink string `json:"extUserProfileLink"`
}

// brandTemplateV3 is a brand template blob as migration 1 stored it.
type brandTemplateV3 struct {
	Name        string          `json:"name"`
	IsDefault   bool            `json:"isDefault"`
	Type        string          `json:"type"`
	Preferences json.RawMessage `json:"preferences"`
}

func migrateRecordsToColumns(ctx context.Context, tx *sql.Tx) error {
	steps := []struct {
		table string
		copy  func(context.Context, *sql.Tx) error
	}{
		{"projects", copyProjectsV3},
		{"clips", copyClipsV3},
		{"social_accounts", copySocialAccountsV3},
		{"brand_templates", copyBrandTemplatesV3},
	}
	for _, st := range steps {
		if err := st.copy(ctx, tx); err != nil {
			return fmt.Errorf("%s: %w", st.table, err)
		}
		if _, err := tx.ExecContext(ctx, `DROP TABLE `+st.table+`; ALTER TABLE `+st.table+`_v4 RENAME TO `+st.table); err != nil {
			return fmt.Errorf("%s: replace the table: %w", st.table, err)
		}
	}
	_, err := tx.ExecContext(ctx, indexesV4)
	return err
}

// Each copy reads all old rows before it writes: the transaction has one
// connection, which should not write while a read on it is open.

// projectColumnsV4 are the projects columns migration 4 made, which it
// fills; later migrations add to projectColumns.
const projectColumnsV4 = `id, org_id, user_id, stage, visibility, source_platform, source_id, video_url, model,
	brand_template_id, product_tier, storage_size, storage_status, storage_expire_at, error, stall_count,
	failure_stalls, retry_at, refund_status, credits_charged, source_path, source_duration_sec,
	created_at, updated_at, prefs`

func copyProjectsV3(ctx context.Context, tx *sql.Tx) error {
	blobs, err := queryAll(ctx, tx, scanString, `SELECT data FROM projects`)
	if err != nil {
		return err
	}
	for _, b := range blobs {
		var p projectV3
		if err := json.Unmarshal([]byte(b), &p); err != nil {
			return fmt.Errorf("decode a v3 project: %w", err)
		}
		prefs, err := rawObject(map[string]json.RawMessage{
			"curationPref": p.CurationPref, "renderPref": p.RenderPref, "importPref": p.ImportPref,
			"uploadedVideoAttr": p.UploadedVideoAttr, "conclusionActions": p.ConclusionActions,
		})
		if err != nil {
			return err
		}
		videoURL := p.Request.VideoURL
		if videoURL == "" && p.SourceURI != nil {
			videoURL = *p.SourceURI
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO projects_v4(`+projectColumnsV4+`) VALUES (`+placeholders(25)+`)`,
			p.ID, p.OrgID, p.UserID, p.Stage, p.Visibility, p.SourcePlatform, p.SourceID, videoURL, p.Model,
			p.BrandTemplateID, p.ProductTier, p.StorageSize, p.StorageStatus, p.StorageExpireAt, p.Error, p.StallCount,
			p.FailureStalls, nullString(p.RetryAt), p.RefundStatus, p.CreditsCharged, p.SourcePath, p.SourceDurationSec,
			p.CreatedAt, p.UpdatedAt, prefs)
		if err != nil {
			return fmt.Errorf("copy project %s: %w", p.ID, err)
		}
	}
	return nil
}

func copyClipsV3(ctx context.Context, tx *sql.Tx) error {
	type row struct {
		projectID, orgID, data string
		seq                    int
	}
	all, err := queryAll(ctx, tx, func(s scanner) (row, error) {
		var r row
		err := s.Scan(&r.projectID, &r.orgID, &r.seq, &r.data)
		return r, err
	}, `SELECT project_id, org_id, seq, data FROM clips`)
	if err != nil {
		return err
	}
	for _, r := range all {
		var c clipV3
		if err := json.Unmarshal([]byte(r.data), &c); err != nil {
			return fmt.Errorf("decode a v3 clip of project %s: %w", r.projectID, err)
		}
		var pref sql.NullString
		if doc := jsonOr(c.RenderPref, ""); doc != "" {
			pref = sql.NullString{String: doc, Valid: true}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO clips_v4(`+clipColumns+`) VALUES (`+placeholders(24)+`)`,
			c.ID, r.projectID, r.orgID, r.seq, c.CurationID, c.RunID, c.UserID, c.URIForPreview, c.URIForExport,
			c.StorageUsed, c.DurationMs, jsonOr(c.TimeRanges, "[]"), jsonOr(c.Keywords, "[]"), c.PromptName, c.Title,
			c.Description, c.Hashtags, c.Text, c.Genre, c.Subgenre, c.ProductTier, pref, c.CreatedAt, c.UpdatedAt)
		if err != nil {
			return fmt.Errorf("copy clip %s: %w", c.ID, err)
		}
	}
	return nil
}

func copySocialAccountsV3(ctx context.Context, tx *sql.Tx) error {
	type row struct{ id, orgID, platform, created, data string }
	all, err := queryAll(ctx, tx, func(s scanner) (row, error) {
		var r row
		err := s.Scan(&r.id, &r.orgID, &r.platform, &r.created, &r.data)
		return r, err
	}, `SELECT post_account_id, org_id, platform, created_at, data FROM social_accounts`)
	if err != nil {
		return err
	}
	for _, r := range all {
		var a socialAccountV3
		if err := json.Unmarshal([]byte(r.data), &a); err != nil {
			return fmt.Errorf("decode v3 social account %s: %w", r.id, err)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO social_accounts_v4(post_account_id, org_id, platform, created_at, sub_account_id,
			ext_user_id, ext_user_name, ext_user_picture_link, ext_user_profile_link) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.id, r.orgID, r.platform, r.created, a.SubAccountID, a.ExtUserID, a.ExtUserName, a.ExtUserPictureLink, a.ExtUserProfileLink)
		if err != nil {
			return fmt.Errorf("copy social account %s: %w", r.id, err)
		}
	}
	return nil
}

func copyBrandTemplatesV3(ctx context.Context, tx *sql.Tx) error {
	type row struct{ id, orgID, data string }
	all, err := queryAll(ctx, tx, func(s scanner) (row, error) {
		var r row
		err := s.Scan(&r.id, &r.orgID, &r.data)
		return r, err
	}, `SELECT id, org_id, data FROM brand_templates`)
	if err != nil {
		return err
	}
	for _, r := range all {
		var t brandTemplateV3
		if err := json.Unmarshal([]byte(r.data), &t); err != nil {
			return fmt.Errorf("decode v3 brand template %s: %w", r.id, err)
		}
		var pref sql.NullString
		if doc := jsonOr(t.Preferences, ""); doc != "" {
			pref = sql.NullString{String: doc, Valid: true}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO brand_templates_v4(id, org_id, name, is_default, type, preferences) VALUES (?, ?, ?, ?, ?, ?)`,
			r.id, r.orgID, t.Name, boolInt(t.IsDefault), t.Type, pref)
		if err != nil {
			return fmt.Errorf("copy brand template %s: %w", r.id, err)
		}
	}
	return nil
}

// rawObject encodes the non-null members of m as one JSON object.
func rawObject(m map[string]json.RawMessage) (string, error) {
	for k, v := range m {
		if len(v) == 0 || string(v) == "null" {
			delete(m, k)
		}
	}
	b, err := json.Marshal(m)
	return string(b), err
}

// jsonOr is raw, or def when raw is absent or null.
func jsonOr(raw json.RawMessage, def string) string {
	if len(raw) == 0 || string(raw) == "null" {
		return def
	}
	return string(raw)
}
