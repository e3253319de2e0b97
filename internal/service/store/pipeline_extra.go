package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// Store methods the pipeline needs beyond the core: writes that must land
// together with a project change, so a crash between them cannot double
// charge credits or lose (or duplicate) a conclusion action.

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

// MutateProjectAndEnqueue is MutateProject where fn may also return
// deliveries; the project change and the new pending deliveries are
// written in one transaction. The stored deliveries (with ids) are returned.
func (s *Store) MutateProjectAndEnqueue(ctx context.Context, id string, fn func(*Project) ([]Delivery, error)) (*Project, []Delivery, error) {
	var out *Project
	var queued []Delivery
	err := s.tx(ctx, func(tx *sql.Tx) error {
		p, err := getProject(ctx, tx, id)
		if err != nil {
			return err
		}
		ds, err := fn(p)
		if err != nil {
			return err
		}
		now := s.Now()
		p.UpdatedAt = Timestamp(now)
		if err := putProject(ctx, tx, p); err != nil {
			return err
		}
		queued = queued[:0]
		for _, d := range ds {
			d.ProjectID, d.Status, d.CreatedAt, d.Attempts = id, DeliveryPending, now, 0
			if d.NextAt.IsZero() {
				d.NextAt = now
			}
			res, err := tx.ExecContext(ctx, `INSERT INTO deliveries(project_id, kind, target, body, attempts, next_at, status, last_error, created_at)
				VALUES (?, ?, ?, ?, 0, ?, ?, '', ?)`, d.ProjectID, d.Kind, d.Target, d.Body, Timestamp(d.NextAt), d.Status, Timestamp(now))
			if err != nil {
				return fmt.Errorf("enqueue delivery: %w", err)
			}
			if d.ID, err = res.LastInsertId(); err != nil {
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

// DueRetries lists the ids of STALLED projects whose retryAt has passed,
// oldest first; permanently stalled projects (no retryAt) are not read.
func (s *Store) DueRetries(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM projects
		WHERE stage = 'STALLED' AND COALESCE(json_extract(data, '$.retryAt'), '') != ''
		AND json_extract(data, '$.retryAt') <= ? ORDER BY created_at, id`, Timestamp(s.Now()))
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
