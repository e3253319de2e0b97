package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
)

// chargeCredits takes n credits from the org's month at now, or returns the
// *quota.MonthlyCapError that passing limit (<= 0: no limit) would cause.
// The org stays locked until tx ends, so parallel charges read and write
// the month in turn and never pass limit together.
func (s *Store) chargeCredits(ctx context.Context, tx *sql.Tx, orgID string, now time.Time, n, limit int64) error {
	if n <= 0 {
		return nil
	}
	if err := s.lockOrg(ctx, tx, orgID); err != nil {
		return err
	}
	month := quota.MonthOf(now)
	var used int64
	err := tx.QueryRowContext(ctx, `SELECT used FROM credits WHERE org_id = ? AND month = ?`, orgID, month).Scan(&used)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("read credits: %w", err)
	}
	if err := quota.CheckMonthly(used, n, limit, now); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO credits(org_id, month, used) VALUES (?, ?, ?)
		ON CONFLICT(org_id, month) DO UPDATE SET used = credits.used + excluded.used`, orgID, month, n)
	if err != nil {
		return fmt.Errorf("charge credits: %w", err)
	}
	return nil
}

// CreditsUsed returns the credits the org used in the current month.
func (s *Store) CreditsUsed(ctx context.Context, orgID string) (int64, error) {
	var used int64
	err := s.db.QueryRowContext(ctx, `SELECT used FROM credits WHERE org_id = ? AND month = ?`, orgID, quota.MonthOf(s.Now())).Scan(&used)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return used, err
}

// refundProject returns p's charged credits to the month it was created in
// (its reserve is taken then, the rest minutes later at IMPORT) and marks
// it REFUNDED; the caller writes p. A refunded project is never refunded
// again, and a month's usage never goes below zero.
func refundProject(ctx context.Context, tx *sql.Tx, p *Project, now time.Time) error {
	if p.RefundStatus != nil && *p.RefundStatus == RefundStatusRefunded {
		return nil
	}
	if p.CreditsCharged > 0 {
		month := quota.MonthOf(now)
		if !p.CreatedAt.IsZero() {
			month = quota.MonthOf(p.CreatedAt)
		}
		_, err := tx.ExecContext(ctx, `UPDATE credits SET used = CASE WHEN used > ? THEN used - ? ELSE 0 END WHERE org_id = ? AND month = ?`,
			p.CreditsCharged, p.CreditsCharged, p.OrgID, month)
		if err != nil {
			return fmt.Errorf("refund credits of project %s: %w", p.ID, err)
		}
	}
	status := RefundStatusRefunded
	p.RefundStatus, p.CreditsCharged = &status, 0
	return nil
}
