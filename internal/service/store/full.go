package store

import (
	"context"
	"errors"
	"syscall"
)

// IsFull reports whether err comes from a full disk: the database could
// not grow (SQLITE_FULL) or a file write found no space (ENOSPC). Such a
// failure is the server's and passes once space is freed, so callers answer
// it as retryable.
func IsFull(err error) bool {
	if errors.Is(err, syscall.ENOSPC) {
		return true
	}
	for _, d := range dialects {
		if d.full(err) {
			return true
		}
	}
	return false
}

// LimitSize caps the database at the size it has now, so a write that
// needs another page fails with SQLITE_FULL as on a full disk; lift (true)
// removes the cap. Tests use it to reproduce a full disk without filling
// one. The store's one connection keeps the setting.
func (s *Store) LimitSize(ctx context.Context, lift bool) error {
	if s.dialect.limitSize == nil {
		return errors.New("limit database size: only a SQLite store has a page cap")
	}
	return s.dialect.limitSize(ctx, s.db, lift)
}
