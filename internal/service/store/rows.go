package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
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

// Times are stored as text in Timestamp's form (UTC, milliseconds, fixed
// width) on both engines: the byte order of the text is time order, so
// queries compare and sort the column against Timestamp's strings alike on
// SQLite and PostgreSQL, and one scan path reads them. Records hold
// time.Time; the zero time is "" (or NULL in a nullable column).

// timeText is t as its column holds it; "" for the zero time.
func timeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return Timestamp(t)
}

// nullTime is t for a nullable time column: NULL for the zero time.
func nullTime(t time.Time) sql.NullString { return nullString(timeText(t)) }

// stamp is t as the store keeps it (UTC, to the millisecond), so a record
// reads back equal to the one written.
func stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

// timeCol scans a time column (text, "" or NULL) into a time.Time.
type timeCol struct{ t *time.Time }

func (c timeCol) Scan(src any) error {
	var s string
	switch v := src.(type) {
	case nil:
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("time column holds a %T", src)
	}
	*c.t = parseTimestamp(s)
	return nil
}

// parseTimestamp reads a time the store wrote with Timestamp; "" is the zero time.
func parseTimestamp(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// nullString maps "" to NULL, for optional text columns.
func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }
