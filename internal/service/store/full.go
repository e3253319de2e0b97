package store

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"modernc.org/sqlite"
)

// sqliteFull is SQLite's SQLITE_FULL, "database or disk is full"; extended
// result codes keep it in the low byte.
const sqliteFull = 13

// IsFull reports whether err comes from a full disk: the database could
// not grow (SQLITE_FULL) or a file write found no space (ENOSPC). Such a
// failure is the server's and passes once space is freed, so callers answer
// it as retryable.
func IsFull(err error) bool {
	if errors.Is(err, syscall.ENOSPC) {
		return true
	}
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqliteFull || isPostgresFull(err)
}

// LimitSize caps the database at the size it has now, so a write that
// needs another page fails with SQLITE_FULL as on a full disk; lift (true)
// removes the cap. Tests use it to reproduce a full disk without filling
// one. The store's one connection keeps the setting.
func (s *Store) LimitSize(ctx context.Context, lift bool) error {
	if s.engine != EngineSQLite {
		return errors.New("limit database size: only a SQLite store has a page cap")
	}
	pages := 1 << 30 // SQLite's default maximum
	if !lift {
		if err := s.db.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
			return fmt.Errorf("database page count: %w", err)
		}
	}
	if _, err := s.db.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		return fmt.Errorf("limit database size: %w", err)
	}
	return nil
}
