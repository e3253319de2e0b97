package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// Errors of the collection methods besides ErrNotFound (which always means
// the collection: missing, or of another organization).
var (
	// ErrCollectionQuota: the org already has its maximum of collections.
	ErrCollectionQuota = errors.New("collection quota reached")
	// ErrClipNotFound: the content id names no clip of the org.
	ErrClipNotFound = errors.New("clip not found")
	// ErrNotInCollection: the clip is not a content of the collection.
	ErrNotInCollection = errors.New("clip is not in the collection")
)

// Collection is a collection record (the API's apitypes.Collection is its
// JSON shape, with the times as text).
type Collection struct {
	CollectionID   string
	CollectionName string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// API is the collection as the API answers it, its times in the spec's
// format.
func (c Collection) API() apitypes.Collection {
	return apitypes.Collection{CollectionID: c.CollectionID, CollectionName: c.CollectionName,
		CreatedAt: Timestamp(c.CreatedAt), UpdatedAt: Timestamp(c.UpdatedAt)}
}

// CreateCollection creates a collection for orgID unless the org already
// has maxCollections of them (maxCollections <= 0: no limit), checked in the
// same transaction so parallel creates cannot overshoot the quota.
func (s *Store) CreateCollection(ctx context.Context, orgID, name string, maxCollections int) (Collection, error) {
	now := s.Now().Truncate(time.Millisecond) // as stored, so a later read is equal
	c := Collection{CollectionID: NewID("col_"), CollectionName: name, CreatedAt: now, UpdatedAt: now}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.lockOrg(ctx, tx, orgID); err != nil {
			return err
		}
		if maxCollections > 0 {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM collections WHERE org_id = ?`, orgID).Scan(&n); err != nil {
				return fmt.Errorf("count collections: %w", err)
			}
			if n >= maxCollections {
				return ErrCollectionQuota
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO collections(id, org_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
			c.CollectionID, orgID, name, timeText(now), timeText(now))
		if err != nil {
			return fmt.Errorf("insert collection: %w", err)
		}
		return nil
	})
	return c, err
}

// GetCollection returns the org's collection id; ErrNotFound when it is
// missing or belongs to another org.
func (s *Store) GetCollection(ctx context.Context, orgID, id string) (Collection, error) {
	return getCollection(ctx, s.db, orgID, id)
}

func getCollection(ctx context.Context, q querier, orgID, id string) (Collection, error) {
	c, err := scanCollection(q.QueryRowContext(ctx, `SELECT id, name, created_at, updated_at FROM collections WHERE id = ? AND org_id = ?`, id, orgID))
	if errors.Is(err, sql.ErrNoRows) {
		return c, ErrNotFound
	}
	if err != nil {
		return c, fmt.Errorf("get collection %s: %w", id, err)
	}
	return c, nil
}

// ListCollections returns up to limit of the org's collections after
// skipping offset, in creation order, and how many there are in all. With
// contentID set only the collections holding that clip count.
func (s *Store) ListCollections(ctx context.Context, orgID, contentID string, offset, limit int) ([]Collection, int, error) {
	where, args := `org_id = ?`, []any{orgID}
	if contentID != "" {
		where += ` AND id IN (SELECT collection_id FROM collection_contents WHERE content_id = ?)`
		args = append(args, contentID)
	}
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM collections WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count collections: %w", err)
	}
	out, err := queryAll(ctx, s.db, scanCollection, `SELECT id, name, created_at, updated_at FROM collections WHERE `+where+` ORDER BY seq LIMIT ? OFFSET ?`,
		append(args, limit, offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("list collections: %w", err)
	}
	return out, total, nil
}

func scanCollection(row scanner) (Collection, error) {
	var c Collection
	var created, updated string
	err := row.Scan(&c.CollectionID, &c.CollectionName, &created, &updated)
	c.CreatedAt, c.UpdatedAt = parseTimestamp(created), parseTimestamp(updated)
	return c, err
}

// DeleteCollection deletes the org's collection and, by the foreign key's
// cascade, its contents; ErrNotFound when there is no such collection.
func (s *Store) DeleteCollection(ctx context.Context, orgID, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM collections WHERE id = ? AND org_id = ?`, id, orgID)
	if err != nil {
		return fmt.Errorf("delete collection %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrNotFound
	}
	return nil
}

// AddCollectionContent puts the clip contentID into the org's collection,
// after the ones already there. Adding a clip already present changes
// nothing. ErrNotFound: no such collection; ErrClipNotFound: no such clip of
// the org.
func (s *Store) AddCollectionContent(ctx context.Context, orgID, collectionID, contentID string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		// Adds to one collection take turns: each numbers its content
		// after the last one's.
		if err := s.lockOrg(ctx, tx, orgID); err != nil {
			return err
		}
		if _, err := getCollection(ctx, tx, orgID, collectionID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM clips WHERE id = ? AND org_id = ?`, contentID, orgID).Scan(&n); err != nil {
			return fmt.Errorf("look up clip %s: %w", contentID, err)
		}
		if n == 0 {
			return ErrClipNotFound
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO collection_contents(collection_id, content_id, seq)
			SELECT ?, ?, COALESCE(MAX(seq), 0) + 1 FROM collection_contents WHERE collection_id = ?
			ON CONFLICT(collection_id, content_id) DO NOTHING`, collectionID, contentID, collectionID)
		if err != nil {
			return fmt.Errorf("add %s to collection %s: %w", contentID, collectionID, err)
		}
		return touchCollection(ctx, tx, res, collectionID, s.Now())
	})
}

// RemoveCollectionContent takes the clip contentID out of the org's
// collection. ErrNotFound: no such collection; ErrNotInCollection: the clip
// is not in it.
func (s *Store) RemoveCollectionContent(ctx context.Context, orgID, collectionID, contentID string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := getCollection(ctx, tx, orgID, collectionID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM collection_contents WHERE collection_id = ? AND content_id = ?`, collectionID, contentID)
		if err != nil {
			return fmt.Errorf("remove %s from collection %s: %w", contentID, collectionID, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrNotInCollection
		}
		return touchCollection(ctx, tx, res, collectionID, s.Now())
	})
}

// touchCollection stamps updatedAt when res changed a content row: the
// collection's contents are part of it.
func touchCollection(ctx context.Context, tx *sql.Tx, res sql.Result, collectionID string, now time.Time) error {
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE collections SET updated_at = ? WHERE id = ?`, Timestamp(now), collectionID); err != nil {
		return fmt.Errorf("stamp collection %s: %w", collectionID, err)
	}
	return nil
}

// CollectionClips returns up to limit clips of the org's collection after
// skipping offset, in the order they were added (limit < 0: all of them).
// A content whose clip is gone (a re-run of its project replaced its clips)
// is left out. ErrNotFound: no such collection.
func (s *Store) CollectionClips(ctx context.Context, orgID, collectionID string, offset, limit int) ([]Clip, error) {
	if _, err := s.GetCollection(ctx, orgID, collectionID); err != nil {
		return nil, err
	}
	clips, err := queryAll(ctx, s.db, scanClip, `SELECT `+qualified(clipColumns, "c")+` FROM collection_contents cc
		JOIN clips c ON c.id = cc.content_id WHERE cc.collection_id = ? ORDER BY cc.seq LIMIT ? OFFSET ?`, collectionID, limitArg(limit), offset)
	if err != nil {
		return nil, fmt.Errorf("list clips of collection %s: %w", collectionID, err)
	}
	return clips, nil
}
