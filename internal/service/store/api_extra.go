package store

import (
	"context"
	"fmt"
)

// TableExists reports whether the database has a table called name. The API
// uses it to tell a feature whose tables a later migration adds (collections)
// from one that is present.
func (s *Store) TableExists(ctx context.Context, name string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, name).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("look up table %s: %w", name, err)
	}
	return n > 0, nil
}
