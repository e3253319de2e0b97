package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// openAtVersion opens a fresh store of b with migrations up to version
// only, as an older clipperd left it.
func openAtVersion(t *testing.T, b backend, version int) (*Store, string) {
	t.Helper()
	ctx := t.Context()
	loc := b.Location(t)
	var db *sql.DB
	var err error
	if b.Name == EnginePostgres {
		db, err = openPostgres(ctx, loc, nil)
	} else {
		db, err = sql.Open("sqlite", "file:"+filepath.Join(loc, DefaultFile))
		db.SetMaxOpenConns(1)
	}
	if err != nil {
		t.Fatal(err)
	}
	s := &Store{db: db, dialect: dialectFor(loc), now: time.Now, master: testMasterKey}
	if err := s.migrateTo(ctx, version); err != nil {
		t.Fatal(err)
	}
	return s, loc
}

// TestMigrationSealsSecrets: the keys, sessions, rate windows and media key
// an older clipperd kept in the clear keep working after the migration
// (the same key logs in, signs webhooks; the same media secret signs, so
// links already handed out stay valid), and none is left in the clear.
func TestMigrationSealsSecrets(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		old, loc := openAtVersion(t, be, sealedVersion()-1)
		const key = "ck_0123456789abcdef0123456789abcdef0123456789abcdef"
		secret := bytes.Repeat([]byte{0xA7}, mediaKeyBytes)
		exp := Timestamp(time.Now().Add(time.Hour))
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`INSERT INTO api_keys VALUES (?, 'org', 'user', '2026-11-23T01:00:00.000Z', 1)`, []any{key}},
			{`INSERT INTO api_keys VALUES ('ck_second_key_of_the_org_xxxxxxxxxxxxxxxx', 'org', 'user2', '2026-11-23T01:00:00.000Z', 2)`, nil},
			{`INSERT INTO gallery_sessions VALUES ('sess1', ?, 'org', ?)`, []any{key, exp}},
			{`INSERT INTO rate_windows VALUES (?, '1 2 3')`, []any{key}},
			{`INSERT INTO rate_windows VALUES (?, '4 5')`, []any{"post:" + key}},
			{`INSERT INTO media_keys VALUES (1, ?, '2026-11-23T01:00:00.000Z')`, []any{secret}},
		} {
			if _, err := old.db.ExecContext(ctx, q.sql, q.args...); err != nil {
				t.Fatalf("%s: %v", q.sql, err)
			}
		}
		if err := old.Close(); err != nil {
			t.Fatal(err)
		}

		s, err := Open(ctx, loc, WithMasterKey(testMasterKey))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		k, err := s.LookupKey(ctx, key)
		if err != nil || k.OrgID != "org" || k.UserID != "user" || k.Prefix != "ck_0123456" {
			t.Fatalf("the old key after the migration: %+v, %v", k, err)
		}
		if first, err := s.FirstKey(ctx, "org"); err != nil || first != key {
			t.Errorf("webhook signing key = %q, %v; want the org's first key", first, err)
		}
		if g, err := s.GallerySession(ctx, "sess1", time.Now()); err != nil || g.Hash != KeyHash(key) {
			t.Errorf("gallery session after the migration: %+v, %v", g, err)
		}
		if w, err := s.RateWindow(ctx, KeyHash(key)); err != nil || len(w) != 3 {
			t.Errorf("rate window after the migration: %v, %v", w, err)
		}
		if w, err := s.RateWindow(ctx, "post:"+KeyHash(key)); err != nil || len(w) != 2 {
			t.Errorf("posting rate window after the migration: %v, %v", w, err)
		}
		if got, err := s.MediaKey(ctx); err != nil || !bytes.Equal(got, secret) {
			t.Errorf("media key after the migration = %x, %v; want the same secret", got, err)
		}
		dump := dumpTables(t, s, "api_keys", "gallery_sessions", "rate_windows", "media_keys")
		for _, plain := range [][]byte{[]byte(key), []byte("ck_second_key"), secret} {
			if bytes.Contains(dump, plain) {
				t.Errorf("%q is still in the clear in the store", plain)
			}
		}
		if be.Name == EngineSQLite {
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			// SQLite may keep freed pages: they must be overwritten by
			// the rebuilt tables, or the file would still hold the keys.
			raw, err := os.ReadFile(filepath.Join(loc, DefaultFile))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(raw, []byte(key)) {
				t.Errorf("the database file still holds the old key's bytes")
			}
		}
	})
}

// TestWrongMasterKeyIsRefusedAtOpen: a store whose secrets were sealed with
// one master key does not open with another, and says why.
func TestWrongMasterKeyIsRefusedAtOpen(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		s, loc := be.open(t)
		if _, err := s.MediaKey(t.Context()); err != nil {
			t.Fatal(err)
		}
		other := storetest.MasterKey()
		_, err := Open(t.Context(), loc, WithMasterKey(other))
		if !errors.Is(err, masterkey.ErrWrongKey) {
			t.Fatalf("open with another master key: %v, want ErrWrongKey", err)
		}
	})
}

// sealedVersion is the version of the migration that seals the secrets.
func sealedVersion() int {
	for i, m := range migrations {
		if m.applySealed != nil {
			return i + 1
		}
	}
	panic("no migration seals the secrets")
}

// dumpTables is every value of the tables, as bytes, to search for secrets.
func dumpTables(t *testing.T, s *Store, tables ...string) []byte {
	t.Helper()
	var out []byte
	for _, table := range tables {
		rows, err := s.db.QueryContext(t.Context(), `SELECT * FROM `+table)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				switch v := v.(type) {
				case []byte:
					out = append(out, v...)
				case string:
					out = append(out, v...)
				}
				out = append(out, 0)
			}
		}
		_ = rows.Close()
	}
	return out
}
