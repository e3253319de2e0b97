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

// The store's SQL is written once, in the dialect both engines accept:
// standard SQL, ON CONFLICT upserts, RETURNING, COALESCE and CASE rather
// than SQLite's scalar MIN/MAX, ? placeholders. What still differs lives
// here: PostgreSQL numbers its placeholders ($1), which the driver below
// rewrites, and the locks that stand in for SQLite's single connection.

// The engines a store runs on, as Engine reports them.
const (
	EngineSQLite   = "sqlite"
	EnginePostgres = "postgres"
)

// IsPostgresURL reports whether location names a PostgreSQL database
// rather than a SQLite file.
func IsPostgresURL(location string) bool {
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

// lockOrg serialises, until tx ends, the transactions that check an
// organization's limits (concurrent projects, monthly credits, storage,
// collections) and then write within them. On SQLite the store's single
// connection already runs one transaction at a time; on PostgreSQL a
// transaction-scoped advisory lock on the org does it, without a table of
// orgs to lock rows of. Two orgs that hash alike only wait for each other.
func (s *Store) lockOrg(ctx context.Context, tx *sql.Tx, orgID string) error {
	if s.engine != EnginePostgres {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended(?, 17))`, "org:"+orgID); err != nil {
		return fmt.Errorf("lock organization %s: %w", orgID, err)
	}
	return nil
}

// forUpdate ends a SELECT of rows a transaction reads and then rewrites,
// so that on PostgreSQL a second transaction waits for the first and reads
// what it wrote; SQLite's single connection needs nothing.
func (s *Store) forUpdate() string {
	if s.engine == EnginePostgres {
		return ` FOR UPDATE`
	}
	return ``
}

// pgDiskFull is PostgreSQL's SQLSTATE disk_full.
const pgDiskFull = "53100"

func isPostgresFull(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == pgDiskFull
}
