package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// RepairReport says what Repair recovered.
type RepairReport struct {
	File    string        // the repaired database, where the damaged one was
	Damaged string        // the damaged database, kept as it was (its -wal beside it)
	Tables  []TableRepair // in the schema's order
}

// TableRepair is one table's recovery: the rows copied, and the spans of
// rows SQLite could not read (each a read error that ended a scan, after
// which the copy went on past the damage).
type TableRepair struct {
	Name     string
	Rows     int64
	Skipped  int      // damaged spans stepped over
	Refused  int      // rows read but refused by the new database (a damaged record breaking a constraint)
	Problems []string // the errors of both, the first few
}

func (t *TableRepair) note(problem string) {
	if len(t.Problems) < maxProblems {
		t.Problems = append(t.Problems, problem)
	}
}

// Repair recovers a damaged SQLite database in place: the damaged files
// are renamed aside (FILE.damaged-TIME, with its -wal), never changed,
// and a new database at file gets the schema and every row SQLite can
// still read from a working copy of them, table by table, stepping over
// damaged pages by rowid. What a damaged page held is lost; the report
// says where. The new database passes quick_check or Repair fails. The
// server must be stopped: another process writing the file would be cut
// off from it.
func Repair(ctx context.Context, file string) (*RepairReport, error) {
	if _, err := os.Stat(file); err != nil {
		return nil, fmt.Errorf("repair: %w", err)
	}
	aside := file + ".damaged-" + time.Now().UTC().Format("20060102T150405Z")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		err := os.Rename(file+suffix, aside+suffix)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("repair: keep the damaged files aside: %w", err)
		}
	}
	// SQLite's own recovery of the log writes to the files it opens: it
	// opens a copy, so the damaged files stay as they were found.
	work, err := os.MkdirTemp(filepath.Dir(file), ".repair-")
	if err != nil {
		return nil, fmt.Errorf("repair: %w", err)
	}
	defer os.RemoveAll(work)
	copyOf := filepath.Join(work, "damaged.db")
	for _, suffix := range []string{"", "-wal"} {
		if err := copyFile(aside+suffix, copyOf+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("repair: %w", err)
		}
	}
	report := &RepairReport{File: file, Damaged: aside}
	if err := recoverInto(ctx, copyOf, file, report); err != nil {
		return report, fmt.Errorf("repair: %w", err)
	}
	if err := checkSQLite(ctx, file); err != nil {
		return report, fmt.Errorf("repair: the recovered database: %w", err)
	}
	return report, nil
}

// recoverInto makes a new database at to from what from still reads.
// The two are apart (no ATTACH): SQLite rolls back a transaction that
// meets a damaged page, which must not take the rows written with it.
func recoverInto(ctx context.Context, from, to string, report *RepairReport) error {
	src, err := sql.Open("sqlite", "file:"+from+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := sql.Open("sqlite", "file:"+to+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer dst.Close()
	dst.SetMaxOpenConns(1)
	type object struct{ kind, name, sql string }
	objects, err := queryAll(ctx, src, func(row scanner) (object, error) {
		var o object
		return o, row.Scan(&o.kind, &o.name, &o.sql)
	}, `SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY CASE type WHEN 'table' THEN 0 ELSE 1 END, rowid`)
	if err != nil {
		return fmt.Errorf("read the schema of the damaged database (nothing can be recovered without it: restore a backup): %w", err)
	}
	for _, o := range objects {
		if o.kind != "table" || strings.HasPrefix(o.name, "sqlite_") {
			continue
		}
		if _, err := dst.ExecContext(ctx, o.sql); err != nil {
			return fmt.Errorf("create table %s: %w", o.name, err)
		}
		t, err := recoverTable(ctx, src, dst, o.name)
		if err != nil {
			return fmt.Errorf("copy table %s: %w", o.name, err)
		}
		report.Tables = append(report.Tables, t)
	}
	// AUTOINCREMENT's counters, so no id is handed out twice.
	if _, err := recoverTable(ctx, src, dst, "sqlite_sequence"); err != nil && !strings.Contains(err.Error(), "no such table") {
		return fmt.Errorf("copy sqlite_sequence: %w", err)
	}
	for _, o := range objects {
		if o.kind == "table" || strings.HasPrefix(o.name, "sqlite_") {
			continue
		}
		if _, err := dst.ExecContext(ctx, o.sql); err != nil {
			return fmt.Errorf("create %s %s: %w", o.kind, o.name, err)
		}
	}
	if _, err = dst.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// recoverTable copies the rows of table that src can read into dst, in rowid
// order. A read error ends a scan; the next starts past the last row
// copied, further each time it fails at once (damage spans pages of rows).
func recoverTable(ctx context.Context, src, dst *sql.DB, table string) (TableRepair, error) {
	t := TableRepair{Name: table}
	quoted := `"` + strings.ReplaceAll(table, `"`, `""`) + `"`
	tx, err := dst.BeginTx(ctx, nil)
	if err != nil {
		return t, err
	}
	defer func() { _ = tx.Rollback() }()
	// Rowids start at 1: every table of the store is a rowid table.
	var last, after, step int64 = 0, 0, 1
	// A damaged tree can hand back rows out of order, so a scan may not get
	// past where it started; progress is only ever forward, and the scans of
	// one table are bounded (each ends at damage, and spans double).
	for scans := 0; scans < maxRepairScans; scans++ {
		n, lastRead, err := recoverRows(ctx, src, tx, quoted, after, &t)
		t.Rows += n
		if n > 0 && lastRead > last {
			last, step = lastRead, 1
		}
		if err == nil {
			break
		}
		if !IsDamage(err) && !errors.Is(err, errOutOfOrder) {
			return t, err
		}
		if n > 0 || t.Skipped == 0 {
			t.Skipped++
			t.note(err.Error())
		}
		if step > 1<<40 || last > (1<<62) {
			break // nothing readable past the damage
		}
		after = max(last, after) + step
		step *= 2
	}
	t.Rows -= int64(t.Refused) // read, not copied
	if err := tx.Commit(); err != nil {
		return t, err
	}
	return t, nil
}

// recoverRows copies the rows of table with a rowid above after, until the
// end or a read error, and returns how many it read and the last rowid;
// a row the new database refuses is counted in t.
func recoverRows(ctx context.Context, src *sql.DB, tx *sql.Tx, table string, after int64, t *TableRepair) (int64, int64, error) {
	rows, err := src.QueryContext(ctx, `SELECT rowid, * FROM `+table+` WHERE rowid > ? ORDER BY rowid`, after)
	if err != nil {
		return 0, after, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, after, err
	}
	insert := `INSERT INTO ` + table + `(rowid, ` + quoteAll(cols[1:]) + `) VALUES (` + placeholders(len(cols)) + `)`
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var n int64
	last := after
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return n, last, err
		}
		rowid, _ := vals[0].(int64)
		if rowid <= last {
			// Out of order: the tree is damaged here. Read on from past it.
			return n, last, errOutOfOrder
		}
		n++
		last = rowid
		if _, err := tx.ExecContext(ctx, insert, vals...); err != nil {
			t.Refused++
			t.note(fmt.Sprintf("row %d refused: %v", last, err))
		}
	}
	return n, last, rows.Err()
}

// maxRepairScans bounds the scans of one table: a few per damaged span.
const maxRepairScans = 10000

// errOutOfOrder ends a scan that met a row whose rowid is not above the last
// one read; it counts as damage.
var errOutOfOrder = errors.New("rowids out of order: the table's tree is damaged")

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = `"` + strings.ReplaceAll(n, `"`, `""`) + `"`
	}
	return strings.Join(q, ", ")
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
