package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency"
)

// postgresDialect is PostgreSQL (pgx), shared by the processes of a
// scale-out installation.
var postgresDialect = dialect{
	name:   EnginePostgres,
	claims: isPostgresURL,
	connect: func(ctx context.Context, location string, o *options) (*sql.DB, error) {
		return openPostgres(ctx, location, o.retry)
	},
	describe:  redactURL,
	shared:    true,
	transient: transientDB,
	full:      isPostgresFull,
	// Advisory locks, without a table of names to lock rows of.
	txLock:        `SELECT pg_advisory_xact_lock(hashtextextended(?, 17))`,
	sessionLock:   `SELECT pg_advisory_lock(hashtextextended(?, 17))`,
	sessionUnlock: `SELECT pg_advisory_unlock(hashtextextended(?, 17))`,
	forUpdate:     ` FOR UPDATE`,
	relaxedCommit: `SET LOCAL synchronous_commit TO OFF`,
	// One snapshot for the whole transaction needs REPEATABLE READ.
	snapshot:  sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead},
	scanTable: `SELECT COUNT(*) FROM api_keys`,
	// clock_timestamp, not now(): now() is the transaction's start.
	clock: `SELECT clock_timestamp()`,
	tables: `SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
	columns: postgresColumns,
	// The PostgreSQL schema's rowid columns are GENERATED ALWAYS.
	insertOverriding: ` OVERRIDING SYSTEM VALUE`,
	resetIdentities:  resetPostgresIdentities,
	base:             schemaPostgres,
	baseVersion:      postgresBase,
	migration:        func(m migration) string { return m.postgres },
	// The updated tables: dropped ones lose their files, updated rows
	// leave dead tuples.
	vacuum: func(tables []string) []string {
		stmts := make([]string, len(tables))
		for i, t := range tables {
			stmts[i] = `VACUUM FULL ` + t
		}
		return stmts
	},
	jobDriver: "riverdatabasesql",
}

// isPostgresURL reports whether location names a PostgreSQL database
// rather than a SQLite file.
func isPostgresURL(location string) bool {
	return strings.HasPrefix(location, "postgres://") || strings.HasPrefix(location, "postgresql://")
}

// postgresMaxConns bounds one process's connections to PostgreSQL.
const postgresMaxConns = 16

// openPostgres opens the database at url through pgx's database/sql
// driver, wrapped so the store's ? placeholders reach PostgreSQL as $n.
func openPostgres(ctx context.Context, url string, retry *dependency.Retry) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", redactURL(url), err)
	}
	var connector driver.Connector = rebindConnector{stdlib.GetConnector(*cfg)}
	if retry != nil {
		connector = retryingConnector{connector, retry}
	}
	db := sql.OpenDB(connector)
	// Bounded, so several processes stay well under the server's
	// max_connections (100 by default); no transaction of the store takes
	// a second connection, so waiting for one cannot deadlock.
	db.SetMaxOpenConns(postgresMaxConns)
	db.SetMaxIdleConns(postgresMaxConns / 2)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("connect to %s: %w", redactURL(url), err)
	}
	return db, nil
}

// redactURL is url without its password, for messages.
func redactURL(url string) string {
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		return "the PostgreSQL URL"
	}
	return fmt.Sprintf("postgres://%s@%s:%d/%s", cfg.User, cfg.Host, cfg.Port, cfg.Database)
}

// rebindConnector hands out pgx connections whose queries are rebound.
type rebindConnector struct{ driver.Connector }

func (c rebindConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	pc, ok := conn.(*stdlib.Conn)
	if !ok {
		_ = conn.Close()
		return nil, fmt.Errorf("pgx connector returned a %T", conn)
	}
	return rebindConn{pc}, nil
}

// rebindConn is a pgx connection that rewrites each query's placeholders;
// everything else (transactions, argument checks, session reset) is pgx's.
type rebindConn struct{ *stdlib.Conn }

func (c rebindConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(rebind(query))
}

func (c rebindConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebind(query))
}

func (c rebindConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	res, err := c.Conn.ExecContext(ctx, rebind(query), args)
	return res, sessionEnded(err)
}

func (c rebindConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := c.Conn.QueryContext(ctx, rebind(query), args)
	return rows, sessionEnded(err)
}

// rebind turns SQLite's placeholders into PostgreSQL's: ?N becomes $N and
// a bare ? the next number after the largest so far (SQLite's own rule).
// Quoted text, quoted names and comments are copied as they are. A query
// that already numbers its placeholders with $ (the job system's, which
// shares the database) is left alone.
func rebind(query string) string {
	if !strings.Contains(query, "?") || strings.Contains(query, "$") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 8)
	highest := 0
	for i := 0; i < len(query); i++ {
		switch c := query[i]; c {
		case '\'', '"':
			end := strings.IndexByte(query[i+1:], c)
			if end < 0 {
				b.WriteString(query[i:])
				return b.String()
			}
			b.WriteString(query[i : i+end+2])
			i += end + 1
		case '-':
			if strings.HasPrefix(query[i:], "--") {
				end := strings.IndexByte(query[i:], '\n')
				if end < 0 {
					end = len(query) - i
				}
				b.WriteString(query[i : i+end])
				i += end - 1
				continue
			}
			b.WriteByte(c)
		case '?':
			j := i + 1
			for j < len(query) && query[j] >= '0' && query[j] <= '9' {
				j++
			}
			n := highest + 1
			if j > i+1 {
				n, _ = strconv.Atoi(query[i+1 : j])
			}
			highest = max(highest, n)
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// pgDiskFull is PostgreSQL's SQLSTATE disk_full.
const pgDiskFull = "53100"

func isPostgresFull(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == pgDiskFull
}

// postgresColumns lists the columns of table that are not generated from
// others.
func postgresColumns(ctx context.Context, q querier, table string) ([]string, error) {
	cols, err := queryAll(ctx, q, scanString, `SELECT column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = ? AND is_generated = 'NEVER'
		ORDER BY ordinal_position`, table)
	if err == nil && len(cols) == 0 {
		err = fmt.Errorf("no table %s", table)
	}
	return cols, err
}

// resetPostgresIdentities moves each PostgreSQL identity sequence past the largest
// value copied into its column, so the next row inserted gets a new one.
func resetPostgresIdentities(ctx context.Context, tx *sql.Tx) error {
	type identity struct{ table, column string }
	ids, err := queryAll(ctx, tx, func(row scanner) (identity, error) {
		var id identity
		return id, row.Scan(&id.table, &id.column)
	}, `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND is_identity = 'YES' ORDER BY table_name`)
	if err != nil {
		return fmt.Errorf("list identity columns: %w", err)
	}
	for _, id := range ids {
		if notCopied(id.table) {
			continue
		}
		col := quoteName(id.column)
		if _, err := tx.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence(?, ?), COALESCE(MAX(`+col+`), 0) + 1, false) FROM `+quoteName(id.table),
			quoteName(id.table), id.column); err != nil {
			return fmt.Errorf("reset the identity of %s.%s: %w", id.table, id.column, err)
		}
	}
	return nil
}
