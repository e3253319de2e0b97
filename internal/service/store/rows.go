package store

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"strings"
)

// scanner is what a row-scanning function reads from: one *sql.Row or the
// current row of *sql.Rows.
type scanner interface {
	Scan(dest ...any) error
}

// querier is the database or a transaction, for reads that run in either.
type querier interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

// execer is the database or a transaction, for writes that run in either.
type execer interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}

// queryAll runs query and scans every row with scan, closing the rows. The
// result is never nil, so an empty list encodes as [] in JSON.
func queryAll[T any](ctx context.Context, q querier, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// queryOne runs a query of one row and scans it with scan; ErrNotFound
// when there is no row.
func queryOne[T any](ctx context.Context, q querier, scan func(scanner) (T, error), query string, args ...any) (T, error) {
	v, err := scan(q.QueryRowContext(ctx, query, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return v, ErrNotFound
	}
	return v, err
}

// qualified prefixes each of the comma-separated columns with alias, for
// a join whose tables share column names.
func qualified(columns, alias string) string {
	parts := strings.Split(columns, ",")
	for i, c := range parts {
		parts[i] = alias + "." + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

// limitArg is limit as a LIMIT's argument, where < 0 means no limit:
// SQLite reads a negative LIMIT so, PostgreSQL refuses it.
func limitArg(limit int) int64 {
	if limit < 0 {
		return math.MaxInt64
	}
	return int64(limit)
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

func anySlice[T any](ss []T) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nullString maps "" to NULL, for optional text columns.
func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }
