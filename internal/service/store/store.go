// Package store keeps clipperd's state in SQLite (modernc.org/sqlite, pure Go):
// keys, projects, clips, uploads, credits, the outbound delivery queue, and
// the posts and publish schedules of connected social accounts.
// Records that mirror API resources are stored as JSON next to the columns
// that queries need, so the wire shape can grow without a migration.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// ErrNotFound is returned when a record does not exist.
var ErrNotFound = errors.New("not found")

// Store is the database handle. It is safe for concurrent use.
type Store struct {
	db  *sql.DB
	now func() time.Time
}

// Open opens (creating if needed) DIR/clipperd.db and applies migrations.
func Open(ctx context.Context, dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	dsn := "file:" + filepath.Join(dir, "clipperd.db") +
		"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	// One connection serialises writers, which SQLite does anyway; it
	// avoids SQLITE_BUSY between our own goroutines.
	db.SetMaxOpenConns(1)
	s := &Store{db: db, now: time.Now}
	if err := s.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

// DB is the database, for the job system (package jobs), whose jobs are
// rows beside the store's and are inserted in its transactions. Nothing
// else reaches past the store's methods.
func (s *Store) DB() *sql.DB { return s.db }

// Engine names the database engine, as package jobs picks its driver by it.
func (s *Store) Engine() string { return "sqlite" }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Now is the store's clock (UTC), shared so timestamps agree.
func (s *Store) Now() time.Time { return s.now().UTC() }

// SetClock replaces the clock; for tests.
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// Timestamp formats t the way the API reports times.
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// TxHook is another package's work inside a store transaction: the job
// system (package jobs) inserting the job of the row the transaction
// writes, or completing it, so the row and its job commit together. Nil
// does nothing.
type TxHook func(ctx context.Context, tx *sql.Tx) error

func (h TxHook) run(ctx context.Context, tx *sql.Tx) error {
	if h == nil {
		return nil
	}
	return h(ctx, tx)
}

// execThen runs one statement, then then, in one transaction: a row's
// change and its job's completion commit together. With none set, a
// statement that changed no row returns none and changes nothing.
func (s *Store) execThen(ctx context.Context, then TxHook, none error, query string, args ...any) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		if none != nil {
			if err := oneRow(res, none); err != nil {
				return err
			}
		}
		return then.run(ctx, tx)
	})
}

func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
