package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency"
)

// WithRetry rides out a PostgreSQL restart or a network blip inside the
// store's calls: connections are retried on r's curve for up to its window
// (every call, the job system's included, waits in the connector), and so
// are whole transactions cut by the server going away (tx). SQLite, a file
// on this machine, has no such blips and takes no retry. Open itself tries
// once, so a wrong address or password fails at start.
func WithRetry(r *dependency.Retry) Option {
	return func(o *options) { o.retry = r }
}

// retryingConnector waits, in Connect, for a database that refuses
// connections (restarting, or the network away): the lowest layer every
// call passes, so each call waits instead of failing. A pooled connection
// the restart killed is dropped by database/sql (pgx reports it bad) and
// replaced through here.
type retryingConnector struct {
	driver.Connector
	retry *dependency.Retry
}

func (c retryingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	var conn driver.Conn
	err := c.retry.Do(ctx, transientDB, func(ctx context.Context) error {
		var err error
		conn, err = c.Connector.Connect(ctx)
		return err
	})
	return conn, err
}

// tx runs fn in a transaction, and again from the start when the
// transaction failed because the server went away (a restart ends every
// session with 57P01): nothing of it was applied, so repeating it is safe,
// and the connector waits for the server to take connections again. This
// is the lowest layer where repeating is safe: a single statement inside
// it cannot be repeated alone (its transaction is gone), and above it every
// caller would need its own loop. fn must do nothing outside tx that a
// second run would do twice (fn's of the store only set their results).
// A commit whose outcome is unknown (the connection broke after COMMIT
// was sent) is not repeated: it may have applied.
func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	if s.retry == nil {
		return s.txOnce(ctx, fn)
	}
	return s.retry.Do(ctx, s.dialect.transient, func(ctx context.Context) error { return s.txOnce(ctx, fn) })
}

func (s *Store) txOnce(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		if !commitNotApplied(err) {
			return &commitUnknownError{err}
		}
		return err
	}
	return nil
}

// commitUnknownError is a COMMIT whose outcome is unknown: never retried.
type commitUnknownError struct{ err error }

func (e *commitUnknownError) Error() string {
	return fmt.Sprintf("commit (it may or may not have applied): %v", e.err)
}
func (e *commitUnknownError) Unwrap() error { return e.err }

// commitNotApplied: the COMMIT failed before reaching the server, or the
// server had ended the session before it (its FATAL was the answer).
func commitNotApplied(err error) bool {
	return pgconn.SafeToRetry(err) || errors.Is(err, driver.ErrBadConn) || serverWentAway(err)
}

// serverWentAway: the server ended the session (57P01 admin_shutdown,
// 57P02 crash_shutdown) or takes none yet (57P03 cannot_connect_now).
func serverWentAway(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && strings.HasPrefix(pe.Code, "57P0")
}

// sessionEnded marks a statement answered by the server ending the session
// (57P01: a restart, pg_terminate_backend) as run on a bad connection: the
// server ended it before running the statement, or aborted the statement
// with it, so nothing was applied, and database/sql runs the statement
// again on a new connection (which the connector waits for). In a
// transaction, tx repeats the whole transaction instead.
func sessionEnded(err error) error {
	if err != nil && serverWentAway(err) {
		return fmt.Errorf("%w: %w", driver.ErrBadConn, err)
	}
	return err
}

// transientDB tells a database that is away (restarting, unreachable)
// from one that answered: connection exceptions (class 08), a session the
// server ended or cannot start yet, connections refused or cut. A refusal
// (a wrong password, a constraint) and an uncertain commit are final.
func transientDB(err error) bool {
	var unknown *commitUnknownError
	if errors.As(err, &unknown) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P0")
	}
	var ce *pgconn.ConnectError
	return errors.As(err, &ce) || errors.Is(err, driver.ErrBadConn) || pgconn.SafeToRetry(err) || dependency.NetworkError(err)
}
