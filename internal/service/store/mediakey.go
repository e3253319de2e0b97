package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
)

// mediaKeyBytes is the size of the media signing key (HMAC-SHA256's block
// is larger; 32 random bytes are its full strength).
const mediaKeyBytes = 32

// MediaKey returns the key that signs media addresses, making it at first
// use, so that links survive restarts.
func (s *Store) MediaKey(ctx context.Context) ([]byte, error) {
	var key []byte
	err := s.db.QueryRowContext(ctx, `SELECT secret FROM media_keys WHERE id = 1`).Scan(&key)
	if err == nil {
		return key, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("read media key: %w", err)
	}
	// Two first uses at once: the first insert wins, both read it back.
	if _, err := s.db.ExecContext(ctx, `INSERT INTO media_keys(id, secret, created_at) VALUES (1, ?, ?) ON CONFLICT(id) DO NOTHING`,
		newMediaKey(), Timestamp(s.Now())); err != nil {
		return nil, fmt.Errorf("create media key: %w", err)
	}
	if err := s.db.QueryRowContext(ctx, `SELECT secret FROM media_keys WHERE id = 1`).Scan(&key); err != nil {
		return nil, fmt.Errorf("read media key: %w", err)
	}
	return key, nil
}

// RotateMediaKey replaces the media signing key: every media address
// handed out so far stops working, and the next reads hand out new ones.
func (s *Store) RotateMediaKey(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx,
		`INSERT INTO media_keys(id, secret, created_at) VALUES (1, ?, ?)
		 ON CONFLICT(id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at`,
		newMediaKey(), Timestamp(s.Now()))
	if err != nil {
		return fmt.Errorf("rotate media key: %w", err)
	}
	return nil
}

func newMediaKey() []byte {
	key := make([]byte, mediaKeyBytes)
	if _, err := rand.Read(key); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return key
}
