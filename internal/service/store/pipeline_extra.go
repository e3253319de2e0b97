package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// Store methods the pipeline needs beyond the core: writes that must land
// together with a project change, so a crash between them cannot double
// charge (or double refund) credits or lose (or duplicate) a conclusion action.

// RefundStatusRefunded is Project.refundStatus once the credits of a project
// that produced nothing were given back.
const RefundStatusRefunded = "REFUNDED"

func putProject(ctx context.Context, tx *sql.Tx, p *Project) error {
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE projects SET stage = ?, data = ? WHERE id = ?`, p.Stage, string(data), p.ID); err != nil {
		return fmt.Errorf("update project %s: %w", p.ID, err)
	}
	return nil
}

// ChargeProjectCredits raises the credits charged for project id to total,
// taking only the difference from the org's month (nothing when the project
// was already charged that much, as on a retry). It returns a
// *MonthlyCapError, leaving everything unchanged, when the difference would
// pass limit (<= 0: no limit).
func (s *Store) ChargeProjectCredits(ctx context.Context, id string, total, limit int64) (*Project, error) {
	var out *Project
	err := s.tx(ctx, func(tx *sql.Tx) error {
		p, err := getProject(ctx, tx, id)
		if err != nil {
			return err
		}
		if extra := total - p.CreditsCharged; extra > 0 {
			if err := chargeCredits(ctx, tx, p.OrgID, s.Now(), extra, limit); err != nil {
				return err
			}
			p.CreditsCharged = total
			p.UpdatedAt = Timestamp(s.Now())
			if err := putProject(ctx, tx, p); err != nil {
				return err
			}
		}
		out = p
		return nil
	})
	return out, err
}

// Effects are what a project change writes beside the project itself, in
// the same transaction.
type Effects struct {
	// Deliveries are new pending conclusion actions of the project.
	Deliveries []Delivery
	// Refund gives back every credit charged for the project and sets its
	// refundStatus to REFUNDED; a project already refunded is left as is.
	Refund bool
}

// MutateProjectWithEffects is MutateProject where fn may also ask for
// Effects; the project change, the new deliveries and the refund are written
// in one transaction. The stored deliveries (with ids) are returned.
func (s *Store) MutateProjectWithEffects(ctx context.Context, id string, fn func(*Project) (Effects, error)) (*Project, []Delivery, error) {
	var out *Project
	var queued []Delivery
	err := s.tx(ctx, func(tx *sql.Tx) error {
		p, err := getProject(ctx, tx, id)
		if err != nil {
			return err
		}
		eff, err := fn(p)
		if err != nil {
			return err
		}
		now := s.Now()
		if eff.Refund {
			if err := refundProject(ctx, tx, p, now); err != nil {
				return err
			}
		}
		p.UpdatedAt = Timestamp(now)
		if err := putProject(ctx, tx, p); err != nil {
			return err
		}
		queued = queued[:0]
		for _, d := range eff.Deliveries {
			d.ProjectID = id
			if err := insertDelivery(ctx, tx, &d, now); err != nil {
				return err
			}
			queued = append(queued, d)
		}
		out = p
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, queued, nil
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
		month := MonthOf(now)
		if t, err := time.Parse(time.RFC3339Nano, p.CreatedAt); err == nil {
			month = MonthOf(t)
		}
		_, err := tx.ExecContext(ctx, `UPDATE credits SET used = MAX(used - ?, 0) WHERE org_id = ? AND month = ?`,
			p.CreditsCharged, p.OrgID, month)
		if err != nil {
			return fmt.Errorf("refund credits of project %s: %w", p.ID, err)
		}
	}
	status := RefundStatusRefunded
	p.RefundStatus, p.CreditsCharged = &status, 0
	return nil
}

// DueRetries lists the ids of STALLED projects whose retryAt has passed,
// oldest first; permanently stalled projects (no retryAt) are not read.
func (s *Store) DueRetries(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM projects
		WHERE stage = ? AND COALESCE(json_extract(data, '$.retryAt'), '') != ''
		AND json_extract(data, '$.retryAt') <= ? ORDER BY created_at, id`, apitypes.StageStalled, Timestamp(s.Now()))
	if err != nil {
		return nil, fmt.Errorf("due retries: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
