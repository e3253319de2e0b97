package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// MonthOf is the credit period key of t (UTC calendar month).
func MonthOf(t time.Time) string { return t.UTC().Format("2006-01") }

// NextMonth is the first instant of the month after t, when the cap resets.
func NextMonth(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
}

func chargeCredits(ctx context.Context, tx *sql.Tx, orgID string, now time.Time, n, limit int64) error {
	if n <= 0 {
		return nil
	}
	month := MonthOf(now)
	var used int64
	err := tx.QueryRowContext(ctx, `SELECT used FROM credits WHERE org_id = ? AND month = ?`, orgID, month).Scan(&used)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("read credits: %w", err)
	}
	if limit > 0 && used+n > limit {
		return &MonthlyCapError{Used: used, Needed: n, Cap: limit, ResetAt: NextMonth(now)}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO credits(org_id, month, used) VALUES (?, ?, ?)
		ON CONFLICT(org_id, month) DO UPDATE SET used = used + excluded.used`, orgID, month, n)
	if err != nil {
		return fmt.Errorf("charge credits: %w", err)
	}
	return nil
}

// CreditsUsed returns the credits the org used in the current month.
func (s *Store) CreditsUsed(ctx context.Context, orgID string) (int64, error) {
	var used int64
	err := s.db.QueryRowContext(ctx, `SELECT used FROM credits WHERE org_id = ? AND month = ?`, orgID, MonthOf(s.Now())).Scan(&used)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return used, err
}
