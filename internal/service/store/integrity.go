package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"modernc.org/sqlite"
)

// DamagedError is a SQLite database that is not whole: pages that
// `PRAGMA quick_check` finds damaged, or a write-ahead log whose tail SQLite
// would drop without a word. The store refuses to open it, so nothing is
// written on top of the damage; Fix says what the operator can do.
type DamagedError struct {
	File     string   // the database file
	Problems []string // what was found, the first few
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("database %s is damaged: %s. %s", e.File, strings.Join(e.Problems, "; "), e.Fix())
}

// Fix is what to do about the damage.
func (e *DamagedError) Fix() string {
	return "Stop clipperd, then either run `clipperd repair --data DIR` (copies every row SQLite can still read into a new " +
		"database and keeps the damaged files beside it as clipperd.db.damaged-TIME), or restore the last backup into an " +
		"empty directory with `clipperd restore --from BACKUP --to NEWDIR` and serve that"
}

// maxProblems bounds what quick_check reports: the first lines say enough.
const maxProblems = 5

// checkSQLite refuses a damaged database before anything reads or writes
// it: the write-ahead log first (SQLite's recovery would drop a damaged
// tail silently and then forget it), then every page (quick_check: the
// b-trees and records, not the indexes' agreement with their tables,
// which integrity_check adds at many times the cost).
func checkSQLite(ctx context.Context, file string) error {
	if problem, err := checkWAL(ctx, file+"-wal"); err != nil {
		return err
	} else if problem != "" {
		return &DamagedError{File: file, Problems: []string{problem}}
	}
	if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
		return nil // a new database
	}
	return quickCheckFile(ctx, file)
}

// quickCheckFile runs quickCheck on the database file: a *DamagedError
// when it finds anything.
func quickCheckFile(ctx context.Context, file string) error {
	db, err := sql.Open("sqlite", "file:"+file+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	defer db.Close()
	problems, err := quickCheck(ctx, db)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return &DamagedError{File: file, Problems: problems}
	}
	return nil
}

// quickCheck runs PRAGMA quick_check and returns its findings ("ok" is
// none). A database too damaged to run it (its first page, its schema) is
// one finding.
func quickCheck(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, fmt.Sprintf("PRAGMA quick_check(%d)", maxProblems))
	if err != nil {
		if IsDamage(err) {
			return []string{err.Error()}, nil
		}
		return nil, fmt.Errorf("check database: %w", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, fmt.Errorf("check database: %w", err)
		}
		for _, l := range strings.Split(line, "\n") {
			if l != "ok" && !strings.HasPrefix(l, "*** ") { // "*** in database main ***" heads the list
				problems = append(problems, l)
			}
		}
	}
	if err := rows.Err(); err != nil {
		if IsDamage(err) {
			return append(problems, err.Error()), nil
		}
		return nil, fmt.Errorf("check database: %w", err)
	}
	return problems, nil
}

// IsDamage tells whether err is SQLite reporting a damaged database
// (SQLITE_CORRUPT, SQLITE_NOTADB), as opposed to a busy or full one.
func IsDamage(err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code() & 0xff { // the primary code of an extended one
	case 11, 26: // SQLITE_CORRUPT, SQLITE_NOTADB
		return true
	}
	return false
}

// The write-ahead log's layout (https://sqlite.org/fileformat.html#the_write_ahead_log):
// a 32-byte header, then frames of a 24-byte header and one page.
const (
	walHeaderSize      = 32
	walFrameHeaderSize = 24
	walMagicLE         = 0x377f0682 // checksums over little-endian words
	walMagicBE         = 0x377f0683 // over big-endian words
)

// checkWAL reads the write-ahead log and says what SQLite would silently
// drop from it: a tail that is not a whole frame (the file was cut or a
// write torn), or a frame of the current log (its salts) whose checksum
// fails, with everything after it. Frames with other salts are an older
// log's, left behind after a checkpoint, and are skipped by design. A
// log cut exactly after a committed frame reads like a shorter log and
// cannot be told from one (see TestTruncatedWALAtAFrameBoundaryIsNotDetected).
//
// A log another process is appending to may be read half-written, so a
// finding counts only if the log reads the same a moment later; a log
// that changed belongs to a running server and is not judged.
func checkWAL(ctx context.Context, wal string) (string, error) {
	first, err := walProblem(wal)
	if err != nil || first == "" {
		return "", err
	}
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case <-time.After(200 * time.Millisecond):
	}
	again, err := walProblem(wal)
	if err != nil || again != first {
		return "", err
	}
	return first, nil
}

func walProblem(wal string) (string, error) {
	data, err := os.ReadFile(wal)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(data) == 0) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read write-ahead log: %w", err)
	}
	name := "the write-ahead log " + wal
	if len(data) < walHeaderSize {
		return fmt.Sprintf("%s is %d bytes, shorter than its header: it was cut", name, len(data)), nil
	}
	magic := binary.BigEndian.Uint32(data)
	if magic != walMagicLE && magic != walMagicBE {
		return name + " does not start as a write-ahead log does", nil
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if magic == walMagicBE {
		order = binary.BigEndian
	}
	pageSize := int(binary.BigEndian.Uint32(data[8:]))
	if pageSize == 1 {
		pageSize = 65536
	}
	if pageSize < 512 || pageSize&(pageSize-1) != 0 {
		return fmt.Sprintf("%s names a page size of %d", name, pageSize), nil
	}
	s1, s2 := walChecksum(order, data[:24], 0, 0)
	if s1 != binary.BigEndian.Uint32(data[24:]) || s2 != binary.BigEndian.Uint32(data[28:]) {
		return name + "'s header fails its checksum", nil
	}
	salts := data[16:24]
	frameSize := walFrameHeaderSize + pageSize
	frames := (len(data) - walHeaderSize) / frameSize
	committed := 0 // frames up to the last commit SQLite will keep
	for i := range frames {
		f := data[walHeaderSize+i*frameSize : walHeaderSize+(i+1)*frameSize]
		if string(f[8:16]) != string(salts) {
			break // an older log's frame: the current log ended before it
		}
		s1, s2 = walChecksum(order, f[:8], s1, s2)
		s1, s2 = walChecksum(order, f[walFrameHeaderSize:], s1, s2)
		if s1 != binary.BigEndian.Uint32(f[16:]) || s2 != binary.BigEndian.Uint32(f[20:]) {
			return fmt.Sprintf("%s has a damaged frame %d of %d: SQLite would drop it and every transaction after frame %d without a word",
				name, i+1, frames, committed), nil
		}
		if binary.BigEndian.Uint32(f[4:]) != 0 {
			committed = i + 1
		}
	}
	if rest := (len(data) - walHeaderSize) % frameSize; rest != 0 {
		return fmt.Sprintf("%s ends in %d bytes that are not a whole frame (it was cut or a write torn): SQLite would keep "+
			"frames 1 to %d and drop the rest without a word", name, rest, committed), nil
	}
	return "", nil
}

// walChecksum continues SQLite's WAL checksum (two running sums over pairs
// of 32-bit words in the log's byte order) over b.
func walChecksum(order binary.ByteOrder, b []byte, s1, s2 uint32) (uint32, uint32) {
	for i := 0; i+8 <= len(b); i += 8 {
		s1 += order.Uint32(b[i:]) + s2
		s2 += order.Uint32(b[i+4:]) + s1
	}
	return s1, s2
}

// Ping reads the database the way every request does (a table's pages,
// not just the connection), for /healthz: damage that fails every call
// fails this too.
func (s *Store) Ping(ctx context.Context) error {
	var n int
	if err := s.db.QueryRowContext(ctx, s.dialect.scanTable).Scan(&n); err != nil {
		return fmt.Errorf("database: %w", err)
	}
	return nil
}
