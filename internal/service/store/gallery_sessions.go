package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Gallery sessions are kept here rather than in the cookie alone, so that
// logging out, revoking the key or expiry ends one for every copy of its
// cookie. A session is named by the SHA-256 of the cookie's random id, and
// holds its key's hash (the key's id here), never the key.

// CreateGallerySession records a session of key named by idHash, ending
// at expires. Expired sessions are swept on the way (logins are rare, so
// the sweep costs nothing worth a janitor).
func (s *Store) CreateGallerySession(ctx context.Context, idHash string, key Key, expires time.Time) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM gallery_sessions WHERE expires_at <= ?`, Timestamp(s.Now())); err != nil {
			return fmt.Errorf("sweep gallery sessions: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO gallery_sessions(id_hash, key_hash, org_id, expires_at) VALUES (?, ?, ?, ?)`,
			idHash, key.Hash, key.OrgID, Timestamp(expires)); err != nil {
			return fmt.Errorf("create gallery session: %w", err)
		}
		return nil
	})
}

// GallerySession returns the key of the live session named by idHash;
// ErrNotFound when there is none, it has expired by now, or its key is
// gone.
func (s *Store) GallerySession(ctx context.Context, idHash string, now time.Time) (Key, error) {
	k, err := queryOne(ctx, s.db, scanKey, `SELECT `+qualified(keyColumns, "k")+` FROM gallery_sessions g
		JOIN api_keys k ON k.key_hash = g.key_hash AND k.org_id = g.org_id
		WHERE g.id_hash = ? AND g.expires_at > ?`, idHash, Timestamp(now))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Key{}, fmt.Errorf("read gallery session: %w", err)
	}
	return k, err
}

// DeleteGallerySession ends the session named by idHash; ending one that
// is not there is no error (logging out twice).
func (s *Store) DeleteGallerySession(ctx context.Context, idHash string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM gallery_sessions WHERE id_hash = ?`, idHash); err != nil {
		return fmt.Errorf("delete gallery session: %w", err)
	}
	return nil
}
