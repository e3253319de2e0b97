package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"modernc.org/sqlite"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
)

// sqliteDialect is the embedded engine (modernc.org/sqlite, pure Go), the
// default: one file of one process, on one connection.
var sqliteDialect = dialect{
	name: EngineSQLite,
	// Any location that is not another engine's is a SQLite file or a
	// data directory (Open).
	claims:           func(string) bool { return true },
	connect:          connectSQLite,
	opened:           tightenSQLiteModes,
	describe:         func(location string) string { return location },
	singleConnection: true,
	full:             isSQLiteFull,
	snapshot:         sql.TxOptions{ReadOnly: true}, // one snapshot from its first read
	// NOT INDEXED: the table's pages, not the smallest index's.
	scanTable: `SELECT COUNT(*) FROM api_keys NOT INDEXED`,
	tables:    `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite!_%' ESCAPE '!' ORDER BY name`,
	columns:   sqliteColumns,
	migration: func(m migration) string { return m.sql },
	// The whole file: old rows of dropped and updated tables stay in
	// freed pages.
	vacuum:    func([]string) []string { return []string{`VACUUM`} },
	limitSize: limitSQLiteSize,
	jobDriver: "riversqlite",
}

// connectSQLite opens the SQLite file at location, or the file DefaultFile
// in the data directory location, checked for damage first, with the key
// file beside it as the master key unless o has one.
func connectSQLite(ctx context.Context, location string, o *options) (*sql.DB, error) {
	file := sqliteFile(location)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	// Damage is found before anything writes on top of it (DamagedError).
	if err := checkSQLite(ctx, file); err != nil {
		return nil, err
	}
	if o.master == nil {
		k, err := masterkey.Load(filepath.Join(filepath.Dir(file), masterkey.DefaultFile))
		if err != nil {
			return nil, fmt.Errorf("open database: %w", err)
		}
		o.master = k
	}
	if err := createPrivate(file); err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	dsn := "file:" + file +
		"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	// One connection serialises writers, which SQLite does anyway; it
	// avoids SQLITE_BUSY between our own goroutines. PostgreSQL keeps a
	// pool, and the rules that relied on this take locks (dialect.go).
	db.SetMaxOpenConns(1)
	return db, nil
}

// sqliteFile is the database file of location: location itself when it
// is a SQLite file, else DefaultFile in the data directory location.
func sqliteFile(location string) string {
	if isSQLiteFile(location) {
		return location
	}
	return filepath.Join(location, DefaultFile)
}

// tightenSQLiteModes: SQLite makes its -wal and -shm with the database's
// mode; files of an older installation are tightened here.
func tightenSQLiteModes(location string) error {
	file := sqliteFile(location)
	for _, f := range []string{file, file + "-wal", file + "-shm"} {
		if err := os.Chmod(f, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// sqliteFull is SQLite's SQLITE_FULL, "database or disk is full"; extended
// result codes keep it in the low byte.
const sqliteFull = 13

func isSQLiteFull(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqliteFull
}

// limitSQLiteSize caps the database at the size it has now, or lifts the
// cap; the store's one connection keeps the setting.
func limitSQLiteSize(ctx context.Context, db *sql.DB, lift bool) error {
	pages := 1 << 30 // SQLite's default maximum
	if !lift {
		if err := db.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
			return fmt.Errorf("database page count: %w", err)
		}
	}
	if _, err := db.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		return fmt.Errorf("limit database size: %w", err)
	}
	return nil
}

// sqliteColumns lists the declared columns of table and the implicit
// rowid (unless a column is named so, or the INTEGER PRIMARY KEY is its
// alias).
func sqliteColumns(ctx context.Context, q querier, table string) ([]string, error) {
	type column struct {
		name, typ string
		pk        int
	}
	info, err := queryAll(ctx, q, func(row scanner) (column, error) {
		var c column
		return c, row.Scan(&c.name, &c.typ, &c.pk)
	}, `SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid`, table)
	if err != nil {
		return nil, err
	}
	if len(info) == 0 {
		return nil, fmt.Errorf("no table %s", table)
	}
	var cols []string
	named, pks, integerPK := false, 0, false
	for _, c := range info {
		cols = append(cols, c.name)
		named = named || strings.EqualFold(c.name, rowidColumn)
		if c.pk > 0 {
			pks++
			integerPK = strings.EqualFold(c.typ, "INTEGER")
		}
	}
	if aliased := named || (pks == 1 && integerPK); !aliased {
		cols = append(cols, rowidColumn)
	}
	return cols, nil
}
