// Package store keeps clipperd's state in SQLite (modernc.org/sqlite, pure
// Go, the default) or PostgreSQL (pgx), through one code path (dialect.go):
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

	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// ErrNotFound is returned when a record does not exist.
var ErrNotFound = errors.New("not found")

// Store is the database handle. It is safe for concurrent use.
type Store struct {
	db *sql.DB
	// dialect is what the engine does its own way, chosen once by Open.
	dialect *dialect
	now     func() time.Time
	master  *masterkey.Key    // seals the secrets kept here (secrets.go)
	retry   *dependency.Retry // PostgreSQL's (retry.go); nil: calls are tried once
}

// Option is a choice of Open.
type Option func(*options)

type options struct {
	master *masterkey.Key
	asIs   bool
	retry  *dependency.Retry
}

// AsIs opens the database as it is, for `clipperd check`: no migration is
// applied and the master key is not tried (SchemaVersion and CheckMasterKey
// say how it stands). A SQLite file is still created if missing: the
// caller looks first.
func AsIs() Option {
	return func(o *options) { o.asIs = true }
}

// WithMasterKey gives the key that seals the store's secrets. Without it a
// SQLite store uses (and at first makes) the key file masterkey.DefaultFile
// beside its database, a convenience of tests: servers and commands always
// give the key they resolved (masterkey.Resolve), which by default lives
// outside the data directory. A PostgreSQL store needs it, since every
// process that shares the database must share the key.
func WithMasterKey(k *masterkey.Key) Option {
	return func(o *options) { o.master = k }
}

// DefaultFile is the SQLite database's name in the data directory.
const DefaultFile = "clipperd.db"

// Open opens (creating if needed) the database at location and applies
// migrations. location is a postgres:// or postgresql:// URL, or a SQLite
// file: an existing file, or a new one named *.db, *.sqlite or *.sqlite3.
// Any other path is a data directory (created if needed), whose database
// is the file DefaultFile in it, as callers that pass the data directory
// have always meant.
func Open(ctx context.Context, location string, opts ...Option) (*Store, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	d := dialectFor(location)
	if d.shared && o.master == nil {
		return nil, errors.New("open database: a PostgreSQL store needs the master key that seals its secrets " +
			"(" + masterkey.Env + " or --master-key-file, the same for every process)")
	}
	// Tried once: a wrong address or password fails at start, not after
	// the retry window.
	ctx = dependency.Once(ctx)
	db, err := d.connect(ctx, location, &o)
	if err != nil {
		return nil, err
	}
	s, err := open(ctx, db, d, o)
	if err != nil {
		return nil, err
	}
	if d.opened != nil {
		if err := d.opened(location); err != nil {
			_ = s.Close()
			return nil, fmt.Errorf("open database: %w", err)
		}
	}
	return s, nil
}

// createPrivate makes the database file readable by its owner only before
// SQLite first opens it (SQLite would make it 0644 under the usual umask).
func createPrivate(file string) error {
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

func isSQLiteFile(path string) bool {
	if fi, err := os.Stat(path); err == nil {
		return !fi.IsDir()
	}
	switch filepath.Ext(path) {
	case ".db", ".sqlite", ".sqlite3":
		return true
	}
	return false
}

// Location is the database a server with data directory dataDir uses:
// database (a PostgreSQL URL or a SQLite file) when set, else the SQLite
// file DefaultFile in dataDir.
func Location(database, dataDir string) string {
	if database != "" {
		return database
	}
	return filepath.Join(dataDir, DefaultFile)
}

func open(ctx context.Context, db *sql.DB, d *dialect, o options) (*Store, error) {
	s := &Store{db: db, dialect: d, now: time.Now, master: o.master}
	if d.transient != nil {
		s.retry = o.retry
	}
	if o.asIs {
		return s, nil
	}
	err := s.migrate(ctx)
	if err == nil {
		err = s.checkMasterKey(ctx)
	}
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

// DB is the database, for the job system (package jobs), whose jobs are
// rows beside the store's and are inserted in its transactions. Nothing
// else reaches past the store's methods.
func (s *Store) DB() *sql.DB { return s.db }

// Engine names the database engine, EngineSQLite or EnginePostgres, for
// display (clipperd check): what differs is asked of the store's
// capabilities (capabilities.go), never of this name.
func (s *Store) Engine() string { return s.dialect.name }

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
