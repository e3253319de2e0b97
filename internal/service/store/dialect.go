package store

import (
	"context"
	"database/sql"
	"fmt"
)

// The store's SQL is written once, in the dialect both engines accept:
// standard SQL, ON CONFLICT upserts, RETURNING, COALESCE and CASE rather
// than SQLite's scalar MIN/MAX, ? placeholders. What still differs is a
// dialect's: Open picks one from the location, once, and the store asks it
// (s.dialect), never the engine's name. A third engine is a third dialect
// value (and its schema's counterparts), in the store's own files.

// The engines a store runs on, as Engine reports them.
const (
	EngineSQLite   = "sqlite"
	EnginePostgres = "postgres"
)

// dialect is what one engine does its own way.
type dialect struct {
	// name is the engine's, for display only (Engine).
	name string
	// claims reports whether location names a database of this engine.
	claims func(location string) bool
	// connect opens the database at location; it may fill o (SQLite loads
	// its default master key).
	connect func(ctx context.Context, location string, o *options) (*sql.DB, error)
	// opened finishes the open once the migrations ran (nil: nothing).
	opened func(location string) error
	// describe names location for messages, without its password.
	describe func(location string) string
	// shared: several processes may use one database at once, so every one
	// needs the same master key, limits are kept in the database and
	// schema changes take turns. false: the database is a file of one
	// process on this machine, guarded by the data directory's lock.
	shared bool
	// singleConnection: the database has one connection, which serialises
	// every transaction (so the locks below are not needed) and which every
	// poll of the job system occupies.
	singleConnection bool
	// transient tells a blip of the database (retry.go) that the store
	// rides out; nil: the engine has none, and calls are tried once.
	transient func(error) bool
	// full reports whether err is the engine's "no space" (IsFull).
	full func(error) bool

	// txLock takes, until the transaction ends, the lock named by its one
	// argument; sessionLock and sessionUnlock take and release one on a
	// connection. "" where singleConnection serialises already.
	txLock, sessionLock, sessionUnlock string
	// forUpdate ends a SELECT of rows a transaction reads and then
	// rewrites, so that a second transaction waits for the first.
	forUpdate string
	// relaxedCommit, run first in a transaction, lets its commit return
	// before the disk has it; "" when the engine has no such setting.
	relaxedCommit string
	// snapshot reads one state of the whole database in a read-only
	// transaction.
	snapshot sql.TxOptions
	// scanTable reads every row of table api_keys from its pages (Ping).
	scanTable string
	// clock reads the database's clock; "" when the database is on this
	// machine, whose clock it reads (DatabaseTime).
	clock string

	// tables lists the tables of the database.
	tables string
	// columns lists the columns of a table that take values (copy.go).
	columns func(ctx context.Context, q querier, table string) ([]string, error)
	// insertOverriding follows an INSERT's column list when it gives
	// values of generated identity columns.
	insertOverriding string
	// resetIdentities moves identity counters past copied values (nil: the
	// engine's counters follow explicit values by themselves).
	resetIdentities func(ctx context.Context, tx *sql.Tx) error

	// base is the schema a new database starts from, at version
	// baseVersion, instead of the migrations up to it ("": from the first).
	base        string
	baseVersion int
	// migration is the SQL of m on this engine.
	migration func(m migration) string
	// vacuum are the statements that rewrite tables a migration removed
	// secrets from.
	vacuum func(tables []string) []string
	// limitSize caps (or lifts the cap on) the database's size; nil when
	// the engine cannot (LimitSize).
	limitSize func(ctx context.Context, db *sql.DB, lift bool) error

	// jobDriver names River's driver for this engine (JobDriver).
	jobDriver string
}

// dialects are the engines, tried in order; the last claims any location.
var dialects = []*dialect{&postgresDialect, &sqliteDialect}

// dialectFor is the dialect of the database at location.
func dialectFor(location string) *dialect {
	for _, d := range dialects {
		if d.claims(location) {
			return d
		}
	}
	panic(fmt.Sprintf("store: no dialect claims %q", location))
}

// lock takes d's transaction lock on name in tx, where d has one.
func (d *dialect) lock(ctx context.Context, tx *sql.Tx, name string) error {
	if d.txLock == "" {
		return nil
	}
	_, err := tx.ExecContext(ctx, d.txLock, name)
	return err
}

// Place is what a database location asks of the process that opens it,
// told before it is opened (Locate).
type Place struct{ d *dialect }

// Locate tells what the database at location (a store.Open location) is.
func Locate(location string) Place { return Place{dialectFor(location)} }

// Shared reports whether several processes may share the database: each
// needs the same master key from outside the data directory, and the
// database is its own to back up and repair (its server's tools).
func (p Place) Shared() bool { return p.d.shared }

// InDataDir reports whether the database is a file of one process, guarded
// by its data directory's lock (package datalock), backed up and repaired
// by clipperd itself.
func (p Place) InDataDir() bool { return !p.d.shared }

// DescribeLocation names a database location for messages: a PostgreSQL
// URL without its password, or the SQLite file.
func DescribeLocation(location string) string { return dialectFor(location).describe(location) }

// lockOrg serialises, until tx ends, the transactions that check an
// organization's limits (concurrent projects, monthly credits, storage,
// collections) and then write within them. SQLite's single connection
// already runs one transaction at a time; PostgreSQL takes a lock on the
// org, without a table of orgs to lock rows of. Two orgs that hash alike
// only wait for each other.
func (s *Store) lockOrg(ctx context.Context, tx *sql.Tx, orgID string) error {
	if err := s.dialect.lock(ctx, tx, "org:"+orgID); err != nil {
		return fmt.Errorf("lock organization %s: %w", orgID, err)
	}
	return nil
}

// forUpdate ends a SELECT of rows a transaction reads and then rewrites
// (see dialect.forUpdate).
func (s *Store) forUpdate() string { return s.dialect.forUpdate }
