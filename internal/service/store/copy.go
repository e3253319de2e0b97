package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// copyTables is every table of the store's schema, in the order CopyTo
// copies them: a table after the tables it references. A migration that
// adds a table adds it here too; CopyTo refuses a source holding a table
// it does not name (TestCopyTablesCoverTheSchema finds the omission first).
var copyTables = []string{
	"installation",
	"api_keys",
	"media_keys",
	"rate_windows",
	"gallery_sessions",
	"brand_templates",
	"social_accounts",
	"uploads",
	"projects",
	"clips",
	"transcript_words",
	"pieces",
	"credits",
	"deliveries",
	"collections",
	"collection_contents",
	"social_copy_jobs",
	"censor_jobs",
	"publish_schedules",
	"posts",
	"media_sums",
	"broll",
	"failed_attempts",
}

// notCopied says which tables of the database CopyTo leaves alone: the
// schema's version, which the target's own migrations wrote, and the job
// system's tables (River's, "river_"), which are not copied: the target's
// processes give every unfinished row a new job at start (each worker's
// Adopt), so no job of the source's processes is carried over half-claimed.
func notCopied(table string) bool {
	return table == "schema_migrations" || strings.HasPrefix(table, "river_")
}

// ErrTargetNotEmpty is CopyTo's answer when the target already holds rows:
// it copies into an empty store only, so nothing there is mixed or lost.
var ErrTargetNotEmpty = errors.New("the target database is not empty")

// CopyReport says what CopyTo copied: rows per table, in copy order.
type CopyReport struct {
	Tables []TableRows
}

// TableRows is how many rows of one table were copied.
type TableRows struct {
	Table string
	Rows  int64
}

// Total is the number of rows copied.
func (r CopyReport) Total() int64 {
	var n int64
	for _, t := range r.Tables {
		n += t.Rows
	}
	return n
}

// CopyTo copies every row of s into dst, an empty store of the same schema
// version (Open applied the migrations of this release to both; a SQLite
// source is brought up to date by opening it, as serve would). s is read in
// one read-only transaction, so a state half written is never copied, and
// dst is written in one transaction: an interrupted copy leaves dst empty
// and is simply run again.
//
// Columns are matched by name, read from each database's catalogue, so a
// migration that adds a column needs no change here. Row order and the
// counters behind identity columns survive: SQLite's implicit rowid, which
// queries order by, fills the PostgreSQL schema's rowid column (and back),
// and PostgreSQL's identity sequences are moved past the copied values.
func (s *Store) CopyTo(ctx context.Context, dst *Store) (CopyReport, error) {
	return s.CopyToThen(ctx, dst, nil)
}

// CopyToThen is CopyTo running then in the target's transaction after the
// rows are copied: a change to the copy commits with it or not at all.
func (s *Store) CopyToThen(ctx context.Context, dst *Store, then TxHook) (CopyReport, error) {
	var report CopyReport
	src, err := s.db.BeginTx(ctx, s.snapshotOptions())
	if err != nil {
		return report, fmt.Errorf("read the source: %w", err)
	}
	defer func() { _ = src.Rollback() }()
	if err := s.checkCopyable(ctx, src, dst); err != nil {
		return report, err
	}
	err = dst.tx(ctx, func(out *sql.Tx) error {
		for _, table := range copyTables {
			n, err := copyTable(ctx, s.dialect, src, dst.dialect, out, table)
			if err != nil {
				return fmt.Errorf("copy table %s: %w", table, err)
			}
			report.Tables = append(report.Tables, TableRows{table, n})
		}
		if reset := dst.dialect.resetIdentities; reset != nil {
			if err := reset(ctx, out); err != nil {
				return err
			}
		}
		return then.run(ctx, out)
	})
	if err != nil {
		return CopyReport{}, err
	}
	return report, nil
}

// snapshotOptions reads one state of the whole database.
func (s *Store) snapshotOptions() *sql.TxOptions {
	opts := s.dialect.snapshot
	return &opts
}

// checkCopyable refuses a copy that would lose or mix rows: a source with
// a table outside copyTables, stores at different schema versions, or a
// target that holds rows already.
func (s *Store) checkCopyable(ctx context.Context, src *sql.Tx, dst *Store) error {
	tables, err := s.dialect.tableNames(ctx, src)
	if err != nil {
		return fmt.Errorf("list the source's tables: %w", err)
	}
	for _, t := range tables {
		if !notCopied(t) && !slices.Contains(copyTables, t) {
			return fmt.Errorf("the source has table %s, which this release does not copy (store.copyTables)", t)
		}
	}
	from, err := schemaVersion(ctx, src)
	if err != nil {
		return err
	}
	to, err := schemaVersion(ctx, dst.db)
	if err != nil {
		return err
	}
	if from != to {
		return fmt.Errorf("the source's schema is at version %d, the target's at %d: open both with the same release", from, to)
	}
	return dst.CheckEmpty(ctx)
}

// CheckEmpty is nil when no table of the store holds a row, else
// ErrTargetNotEmpty naming the first that does: what CopyTo copies into.
func (s *Store) CheckEmpty(ctx context.Context) error {
	for _, t := range copyTables {
		var n int64
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+quoteName(t)).Scan(&n); err != nil {
			return fmt.Errorf("count the rows of %s: %w", t, err)
		}
		if n > 0 {
			return fmt.Errorf("%w: table %s holds %d rows", ErrTargetNotEmpty, t, n)
		}
	}
	return nil
}

// copyBatchValues bounds the values of one INSERT (PostgreSQL takes at most
// 65535 parameters, SQLite 32766).
const copyBatchValues = 4000

// copyTable copies every row of table from src to dst, by the columns both
// have, and returns how many.
func copyTable(ctx context.Context, srcDialect *dialect, src *sql.Tx, dstDialect *dialect, dst *sql.Tx, table string) (int64, error) {
	from, err := srcDialect.columnNames(ctx, src, table)
	if err != nil {
		return 0, err
	}
	to, err := dstDialect.columnNames(ctx, dst, table)
	if err != nil {
		return 0, err
	}
	var cols []string
	for _, c := range from {
		switch {
		case slices.Contains(to, c):
			cols = append(cols, c)
		case c != rowidColumn:
			return 0, fmt.Errorf("the target has no column %s", c)
		}
	}
	rows, err := selectColumns(ctx, src, table, cols)
	if err != nil {
		return 0, err
	}
	defer rows.Close()

	insert := `INSERT INTO ` + quoteName(table) + ` (` + nameList(cols) + `)` + dstDialect.insertOverriding
	one := `(` + strings.TrimSuffix(strings.Repeat(`?, `, len(cols)), `, `) + `)`
	perBatch := max(1, copyBatchValues/len(cols))
	var batch []any
	var n int64
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		k := len(batch) / len(cols)
		stmt := insert + ` VALUES ` + strings.TrimSuffix(strings.Repeat(one+`, `, k), `, `)
		if _, err := dst.ExecContext(ctx, stmt, batch...); err != nil {
			return err
		}
		batch = batch[:0]
		return nil
	}
	for rows.Next() {
		vals, err := scanValues(rows, len(cols))
		if err != nil {
			return n, err
		}
		batch = append(batch, vals...)
		n++
		if len(batch)/len(cols) == perBatch {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	return n, flush()
}

// selectColumns reads cols of every row of table, in rowid order where
// rowid is among them.
func selectColumns(ctx context.Context, q querier, table string, cols []string) (*sql.Rows, error) {
	query := `SELECT ` + nameList(cols) + ` FROM ` + quoteName(table)
	if slices.Contains(cols, rowidColumn) {
		query += ` ORDER BY ` + rowidColumn
	}
	return q.QueryContext(ctx, query)
}

// scanValues scans the current row's n values as the driver gives them.
func scanValues(rows *sql.Rows, n int) ([]any, error) {
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	return vals, rows.Scan(ptrs...)
}

// nameList is cols quoted and comma-separated.
func nameList(cols []string) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = quoteName(c)
	}
	return strings.Join(names, ", ")
}

// rowidColumn is SQLite's implicit row id, the insertion order queries
// sort by; the PostgreSQL schema gives the tables that need it a real
// column of that name.
const rowidColumn = "rowid"

// tableNames lists the tables of the database.
func (d *dialect) tableNames(ctx context.Context, q querier) ([]string, error) {
	return queryAll(ctx, q, scanString, d.tables)
}

// columnNames lists the columns of table that take values: on SQLite its
// declared columns and the implicit rowid, on PostgreSQL the columns that
// are not generated from others.
func (d *dialect) columnNames(ctx context.Context, q querier, table string) ([]string, error) {
	return d.columns(ctx, q, table)
}

// quoteName quotes an identifier for both engines; SQLite's rowid is left
// bare, as quoted it would be an ordinary name.
func quoteName(name string) string {
	if name == rowidColumn {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
