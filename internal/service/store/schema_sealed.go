package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
)

// The migration that stops keeping secrets in the clear: API keys become
// their hash, prefix and sealed copy; gallery sessions and rate windows
// name a key by its hash; the media signing secret is sealed with the
// master key (the same secret, so links already handed out keep working).

const sealedSecretsSQLite = `CREATE TABLE api_keys_sealed (
	key_hash TEXT PRIMARY KEY,
	prefix TEXT NOT NULL,
	sealed BLOB NOT NULL,
	org_id TEXT NOT NULL,
	user_id TEXT NOT NULL,
	created_at TEXT NOT NULL,
	seq INTEGER NOT NULL
);
CREATE TABLE gallery_sessions_sealed (
	id_hash TEXT PRIMARY KEY,
	key_hash TEXT NOT NULL,
	org_id TEXT NOT NULL,
	expires_at TEXT NOT NULL
);`

const sealedSecretsPostgres = `CREATE TABLE api_keys_sealed (
	key_hash TEXT COLLATE "C" PRIMARY KEY,
	prefix TEXT COLLATE "C" NOT NULL,
	sealed BYTEA NOT NULL,
	org_id TEXT COLLATE "C" NOT NULL,
	user_id TEXT COLLATE "C" NOT NULL,
	created_at TEXT COLLATE "C" NOT NULL,
	seq BIGINT NOT NULL
);
CREATE TABLE gallery_sessions_sealed (
	id_hash TEXT COLLATE "C" PRIMARY KEY,
	key_hash TEXT COLLATE "C" NOT NULL,
	org_id TEXT COLLATE "C" NOT NULL,
	expires_at TEXT COLLATE "C" NOT NULL
);`

// migrateToSealedSecrets fills the new tables from the old ones, replaces
// them, and seals the media key in place. Portable SQL: it runs on both
// engines, after their own CREATE TABLEs.
func migrateToSealedSecrets(ctx context.Context, tx *sql.Tx, master *masterkey.Key) error {
	type oldKey struct {
		key, org, user, created string
		seq                     int64
	}
	keys, err := queryAll(ctx, tx, func(sc scanner) (oldKey, error) {
		var k oldKey
		err := sc.Scan(&k.key, &k.org, &k.user, &k.created, &k.seq)
		return k, err
	}, `SELECT key, org_id, user_id, created_at, seq FROM api_keys`)
	if err != nil {
		return fmt.Errorf("read api keys: %w", err)
	}
	for _, k := range keys {
		if _, err := tx.ExecContext(ctx, `INSERT INTO api_keys_sealed(key_hash, prefix, sealed, org_id, user_id, created_at, seq)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, KeyHash(k.key), KeyPrefix(k.key), master.Seal(purposeAPIKey, []byte(k.key)),
			k.org, k.user, k.created, k.seq); err != nil {
			return fmt.Errorf("hash api key: %w", err)
		}
	}

	type oldSession struct{ id, key, org, expires string }
	sessions, err := queryAll(ctx, tx, func(sc scanner) (oldSession, error) {
		var g oldSession
		err := sc.Scan(&g.id, &g.key, &g.org, &g.expires)
		return g, err
	}, `SELECT id_hash, api_key, org_id, expires_at FROM gallery_sessions`)
	if err != nil {
		return fmt.Errorf("read gallery sessions: %w", err)
	}
	for _, g := range sessions {
		if _, err := tx.ExecContext(ctx, `INSERT INTO gallery_sessions_sealed(id_hash, key_hash, org_id, expires_at) VALUES (?, ?, ?, ?)`,
			g.id, KeyHash(g.key), g.org, g.expires); err != nil {
			return fmt.Errorf("gallery session: %w", err)
		}
	}

	type window struct{ key, times string }
	windows, err := queryAll(ctx, tx, func(sc scanner) (window, error) {
		var w window
		err := sc.Scan(&w.key, &w.times)
		return w, err
	}, `SELECT api_key, times FROM rate_windows`)
	if err != nil {
		return fmt.Errorf("read rate windows: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM rate_windows`); err != nil {
		return fmt.Errorf("rate windows: %w", err)
	}
	for _, w := range windows {
		// The posting endpoints' windows are the key's under "post:".
		name := KeyHash(w.key)
		if raw, ok := strings.CutPrefix(w.key, "post:"); ok {
			name = "post:" + KeyHash(raw)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO rate_windows(api_key, times) VALUES (?, ?)`, name, w.times); err != nil {
			return fmt.Errorf("rate windows: %w", err)
		}
	}

	for _, stmt := range []string{
		`DROP TABLE gallery_sessions`,
		`ALTER TABLE gallery_sessions_sealed RENAME TO gallery_sessions`,
		`CREATE INDEX gallery_sessions_key ON gallery_sessions(key_hash)`,
		`CREATE INDEX gallery_sessions_expires ON gallery_sessions(expires_at)`,
		`DROP TABLE api_keys`,
		`ALTER TABLE api_keys_sealed RENAME TO api_keys`,
		`CREATE INDEX api_keys_org ON api_keys(org_id, seq)`,
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}

	var secret []byte
	err = tx.QueryRowContext(ctx, `SELECT secret FROM media_keys WHERE id = 1`).Scan(&secret)
	if err == sql.ErrNoRows {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read media key: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE media_keys SET secret = ? WHERE id = 1`, master.Seal(purposeMediaKey, secret)); err != nil {
		return fmt.Errorf("seal media key: %w", err)
	}
	return nil
}
