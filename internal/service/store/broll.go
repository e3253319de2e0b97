package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// BrollItem is a picture of an org's b-roll library: an image or a video
// the renders of projects with enableBroll cut away to while a keyword of
// it is spoken.
type BrollItem struct {
	ID       string
	OrgID    string
	Name     string   // the file's name when added, for the listings
	Key      string   // its blob key (blob.BrollKey)
	Keywords []string // as given, trimmed, none empty
	Still    bool     // an image, not a video
	Width    int
	Height   int
	// DurationSec is a video's length, 0 for an image.
	DurationSec float64
	Size        int64
	CreatedAt   time.Time
}

// keywordSep joins the keywords in their column; AddBrollItem refuses a
// keyword holding it.
const keywordSep = ","

// AddBrollItem stores a new item (ID and CreatedAt are set here).
func (s *Store) AddBrollItem(ctx context.Context, it *BrollItem) error {
	for _, k := range it.Keywords {
		if k == "" || strings.Contains(k, keywordSep) {
			return fmt.Errorf("add b-roll item: keyword %q: want a non-empty word or phrase without %q", k, keywordSep)
		}
	}
	if it.ID == "" {
		it.ID = NewID("broll_")
	}
	it.CreatedAt = stamp(s.Now())
	_, err := s.db.ExecContext(ctx, `INSERT INTO broll(id, org_id, name, media_key, keywords, still, width, height, duration_sec, size, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		it.ID, it.OrgID, it.Name, it.Key, strings.Join(it.Keywords, keywordSep), boolInt(it.Still), it.Width, it.Height,
		it.DurationSec, it.Size, timeText(it.CreatedAt))
	if err != nil {
		return fmt.Errorf("add b-roll item: %w", err)
	}
	return nil
}

const brollColumns = `id, org_id, name, media_key, keywords, still, width, height, duration_sec, size, created_at`

func scanBrollItem(row scanner) (*BrollItem, error) {
	var it BrollItem
	var keywords string
	var still int
	if err := row.Scan(&it.ID, &it.OrgID, &it.Name, &it.Key, &keywords, &still, &it.Width, &it.Height,
		&it.DurationSec, &it.Size, timeCol{&it.CreatedAt}); err != nil {
		return nil, err
	}
	if keywords != "" {
		it.Keywords = strings.Split(keywords, keywordSep)
	}
	it.Still = still != 0
	return &it, nil
}

// BrollItems lists the org's b-roll library, oldest first (the order the
// render prefers items in when several match a word).
func (s *Store) BrollItems(ctx context.Context, orgID string) ([]*BrollItem, error) {
	out, err := queryAll(ctx, s.db, scanBrollItem, `SELECT `+brollColumns+` FROM broll WHERE org_id = ? ORDER BY created_at, id`, orgID)
	if err != nil {
		return nil, fmt.Errorf("list b-roll of org %s: %w", orgID, err)
	}
	return out, nil
}

// BrollItem is the org's item id; ErrNotFound when it is missing or
// another org's.
func (s *Store) BrollItem(ctx context.Context, orgID, id string) (*BrollItem, error) {
	it, err := queryOne(ctx, s.db, scanBrollItem, `SELECT `+brollColumns+` FROM broll WHERE id = ? AND org_id = ?`, id, orgID)
	if errors.Is(err, ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get b-roll item %s: %w", id, err)
	}
	return it, nil
}

// RemoveBrollItem deletes the org's item id; ErrNotFound when it is missing
// or another org's. The caller deletes its picture (Key) after.
func (s *Store) RemoveBrollItem(ctx context.Context, orgID, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM broll WHERE id = ? AND org_id = ?`, id, orgID)
	if err != nil {
		return fmt.Errorf("remove b-roll item %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return ErrNotFound
	}
	return nil
}
