package store

import (
	"context"
	"fmt"
	"time"
)

// Delivery statuses.
const (
	DeliveryPending = "pending"
	DeliveryDone    = "done"
	DeliveryFailed  = "failed" // gave up after the last attempt
)

// Delivery is one outbound message (a webhook call or an email) kept until it
// is sent, so a restart does not lose it.
type Delivery struct {
	ID        int64
	ProjectID string
	Kind      string // WEBHOOK or EMAIL
	Target    string // URL or address
	Body      string // JSON payload for webhooks, the message for email
	Attempts  int
	NextAt    time.Time
	Status    string
	LastError string
	CreatedAt time.Time
}

// EnqueueDelivery stores a new pending delivery, due now unless NextAt is set.
func (s *Store) EnqueueDelivery(ctx context.Context, d *Delivery) error {
	return insertDelivery(ctx, s.db, d, s.Now())
}

// insertDelivery stores d as a new pending delivery created at now, setting
// its id; q is the database or the transaction of a project change.
func insertDelivery(ctx context.Context, q querier, d *Delivery, now time.Time) error {
	d.Status, d.CreatedAt, d.Attempts, d.LastError = DeliveryPending, now, 0, ""
	if d.NextAt.IsZero() {
		d.NextAt = now
	}
	// RETURNING rather than LastInsertId, which pgx does not implement.
	err := q.QueryRowContext(ctx, `INSERT INTO deliveries(project_id, kind, target, body, attempts, next_at, status, last_error, created_at)
		VALUES (?, ?, ?, ?, 0, ?, ?, '', ?) RETURNING id`, d.ProjectID, d.Kind, d.Target, d.Body, Timestamp(d.NextAt), d.Status, Timestamp(now)).Scan(&d.ID)
	if err != nil {
		return fmt.Errorf("enqueue delivery: %w", err)
	}
	return nil
}

// DueDeliveries lists pending deliveries whose time has come.
func (s *Store) DueDeliveries(ctx context.Context, limit int) ([]Delivery, error) {
	out, err := queryAll(ctx, s.db, scanDelivery, `SELECT `+deliveryColumns+`
		FROM deliveries WHERE status = ? AND next_at <= ? ORDER BY next_at, id LIMIT ?`, DeliveryPending, Timestamp(s.Now()), limit)
	if err != nil {
		return nil, fmt.Errorf("due deliveries: %w", err)
	}
	return out, nil
}

// ProjectDeliveries lists every delivery of a project, oldest first.
func (s *Store) ProjectDeliveries(ctx context.Context, projectID string) ([]Delivery, error) {
	out, err := queryAll(ctx, s.db, scanDelivery, `SELECT `+deliveryColumns+` FROM deliveries WHERE project_id = ? ORDER BY id`, projectID)
	if err != nil {
		return nil, fmt.Errorf("project deliveries: %w", err)
	}
	return out, nil
}

const deliveryColumns = `id, project_id, kind, target, body, attempts, next_at, status, last_error, created_at`

func scanDelivery(row scanner) (Delivery, error) {
	var d Delivery
	var next, created string
	if err := row.Scan(&d.ID, &d.ProjectID, &d.Kind, &d.Target, &d.Body, &d.Attempts, &next, &d.Status, &d.LastError, &created); err != nil {
		return d, err
	}
	d.NextAt, _ = time.Parse(time.RFC3339Nano, next)
	d.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	return d, nil
}

// SaveDeliveryAttempt records the outcome of an attempt.
func (s *Store) SaveDeliveryAttempt(ctx context.Context, d *Delivery) error {
	_, err := s.db.ExecContext(ctx, `UPDATE deliveries SET attempts = ?, next_at = ?, status = ?, last_error = ? WHERE id = ?`,
		d.Attempts, Timestamp(d.NextAt), d.Status, d.LastError, d.ID)
	if err != nil {
		return fmt.Errorf("save delivery %d: %w", d.ID, err)
	}
	return nil
}
