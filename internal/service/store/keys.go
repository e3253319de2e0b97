package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// API keys are kept as the SHA-256 of the key (what requests are looked up
// by: a key is high-entropy, so an unsalted hash is as good as a slow one,
// and costs a microsecond per request), a short prefix for `keys list`, and
// the key sealed with the master key, since webhooks are signed with an
// organization's first key (filled-gaps.md, Webhooks). The database alone
// opens no key.

// Key is an API key as the store knows it, and the organization and user
// it acts for. The key itself is never read back, except by FirstKey.
type Key struct {
	Hash   string // the hex SHA-256 of the key: its id in the store
	Prefix string // its first characters, to tell keys apart in lists
	OrgID  string
	UserID string
}

// maxPrefix is how many leading characters of a key are kept in the clear:
// enough to tell keys apart, at most a quarter of a short key.
const maxPrefix = 10

// KeyHash is the hex SHA-256 of key, its id in the store.
func KeyHash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// KeyPrefix is the part of key shown by `keys list`.
func KeyPrefix(key string) string {
	return key[:min(maxPrefix, len(key)/4)]
}

// purposeAPIKey is the label sealed API keys are bound to.
const purposeAPIKey = "clipperd api key"

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
			`INSERT INTO api_keys(key_hash, prefix, sealed, org_id, user_id, created_at, seq)
			 VALUES (?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM api_keys))
			 ON CONFLICT(key_hash) DO NOTHING`,
			KeyHash(key), KeyPrefix(key), s.master.Seal(purposeAPIKey, []byte(key)), orgID, userID, Timestamp(s.Now()))
		if err != nil {
			return fmt.Errorf("ensure key: %w", err)
		}
		return nil
	})
}

// CreateKey makes a new random key for org/user and returns it: the only
// time it is shown.
func (s *Store) CreateKey(ctx context.Context, orgID, userID string) (string, error) {
	key := NewSecret("ck_")
	if err := s.EnsureKey(ctx, key, orgID, userID); err != nil {
		return "", err
	}
	return key, nil
}

const keyColumns = `key_hash, prefix, org_id, user_id`

func scanKey(sc scanner) (Key, error) {
	var k Key
	err := sc.Scan(&k.Hash, &k.Prefix, &k.OrgID, &k.UserID)
	return k, err
}

// LookupKey resolves an API key; ErrNotFound when unknown.
func (s *Store) LookupKey(ctx context.Context, key string) (Key, error) {
	k, err := queryOne(ctx, s.db, scanKey, `SELECT `+keyColumns+` FROM api_keys WHERE key_hash = ?`, KeyHash(key))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Key{}, fmt.Errorf("lookup key: %w", err)
	}
	return k, err
}

// KeyInfo is a key as `keys list` shows it.
type KeyInfo struct {
	Key
	CreatedAt time.Time
}

// Keys lists every key (never the key itself), by organization, oldest
// first.
func (s *Store) Keys(ctx context.Context) ([]KeyInfo, error) {
	out, err := queryAll(ctx, s.db, func(sc scanner) (KeyInfo, error) {
		var k KeyInfo
		var created string
		err := sc.Scan(&k.Hash, &k.Prefix, &k.OrgID, &k.UserID, &created)
		k.CreatedAt = parseTimestamp(created)
		return k, err
	}, `SELECT `+keyColumns+`, created_at FROM api_keys ORDER BY org_id, seq`)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	return out, nil
}

// FirstKey returns the organization's first key, which signs its webhooks,
// unsealed with the master key.
func (s *Store) FirstKey(ctx context.Context, orgID string) (string, error) {
	var sealed []byte
	err := s.db.QueryRowContext(ctx, `SELECT sealed FROM api_keys WHERE org_id = ? ORDER BY seq LIMIT 1`, orgID).Scan(&sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("first key of %s: %w", orgID, err)
	}
	key, err := s.master.Open(purposeAPIKey, sealed)
	if err != nil {
		return "", fmt.Errorf("first key of %s: %w", orgID, err)
	}
	return string(key), nil
}

// RevokeKey deletes the API key whose hash is keyHash (KeyHash): requests
// with it are refused from then on, and gallery sessions opened with it
// end. ErrNotFound when unknown.
func (s *Store) RevokeKey(ctx context.Context, keyHash string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM gallery_sessions WHERE key_hash = ?`, keyHash); err != nil {
			return fmt.Errorf("revoke key: end its gallery sessions: %w", err)
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM api_keys WHERE key_hash = ?`, keyHash)
		if err != nil {
			return fmt.Errorf("revoke key: %w", err)
		}
		return oneRow(res, ErrNotFound)
	})
}
