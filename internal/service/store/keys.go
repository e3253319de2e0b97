package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Key is an API key and the organization and user it acts for.
type Key struct {
	Key    string
	OrgID  string
	UserID string
}

// EnsureKey records key for org/user if it is not known yet. Idempotent, so
// the server can call it on every start with CLIPPERD_API_KEY.
func (s *Store) EnsureKey(ctx context.Context, key, orgID, userID string) error {
	if key == "" || orgID == "" || userID == "" {
		return errors.New("ensure key: key, org and user are required")
	}
	// The org's keys take their numbers in turn, so its first key (which
	// signs its webhooks) is one key however many are made at once.
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.lockOrg(ctx, tx, orgID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx,
			`INSERT INTO api_keys(key, org_id, user_id, created_at, seq)
			 VALUES (?, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM api_keys))
			 ON CONFLICT(key) DO NOTHING`, key, orgID, userID, Timestamp(s.Now()))
		if err != nil {
			return fmt.Errorf("ensure key: %w", err)
		}
		return nil
	})
}

// CreateKey makes a new random key for org/user and returns it.
func (s *Store) CreateKey(ctx context.Context, orgID, userID string) (string, error) {
	key := NewSecret("ck_")
	if err := s.EnsureKey(ctx, key, orgID, userID); err != nil {
		return "", err
	}
	return key, nil
}

// LookupKey resolves an API key; ErrNotFound when unknown.
func (s *Store) LookupKey(ctx context.Context, key string) (Key, error) {
	k := Key{Key: key}
	err := s.db.QueryRowContext(ctx, `SELECT org_id, user_id FROM api_keys WHERE key = ?`, key).Scan(&k.OrgID, &k.UserID)
	if errors.Is(err, sql.ErrNoRows) {
		return Key{}, ErrNotFound
	}
	if err != nil {
		return Key{}, fmt.Errorf("lookup key: %w", err)
	}
	return k, nil
}

// FirstKey returns the organization's first key, which signs its webhooks.
func (s *Store) FirstKey(ctx context.Context, orgID string) (string, error) {
	var key string
	err := s.db.QueryRowContext(ctx, `SELECT key FROM api_keys WHERE org_id = ? ORDER BY seq LIMIT 1`, orgID).Scan(&key)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("first key of %s: %w", orgID, err)
	}
	return key, nil
}

// RevokeKey deletes an API key: requests with it are refused from then on,
// and gallery sessions opened with it end. ErrNotFound when unknown.
func (s *Store) RevokeKey(ctx context.Context, key string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM gallery_sessions WHERE api_key = ?`, key); err != nil {
			return fmt.Errorf("revoke key: end its gallery sessions: %w", err)
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM api_keys WHERE key = ?`, key)
		if err != nil {
			return fmt.Errorf("revoke key: %w", err)
		}
		return oneRow(res, ErrNotFound)
	})
}
