package store

import (
	"context"
	"database/sql"
	"errors"
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

// EnqueueDelivery stores a new pending delivery, due now unless NextAt is
// set; enqueue (the dispatcher's job) runs in the same transaction, once d
// has its id.
func (s *Store) EnqueueDelivery(ctx context.Context, d *Delivery, enqueue TxHook) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := insertDelivery(ctx, tx, d, s.Now()); err != nil {
			return err
		}
		return enqueue.run(ctx, tx)
	})
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

// PendingDeliveries lists the ids of the pending deliveries, oldest first.
func (s *Store) PendingDeliveries(ctx context.Context) ([]int64, error) {
	ids, err := queryAll(ctx, s.db, func(r scanner) (int64, error) {
		var id int64
		return id, r.Scan(&id)
	}, `SELECT id FROM deliveries WHERE status = ? ORDER BY id`, DeliveryPending)
	if err != nil {
		return nil, fmt.Errorf("pending deliveries: %w", err)
	}
	return ids, nil
}

// GetDelivery returns delivery id; ErrNotFound when absent.
func (s *Store) GetDelivery(ctx context.Context, id int64) (*Delivery, error) {
	d, err := scanDelivery(s.db.QueryRowContext(ctx, `SELECT `+deliveryColumns+` FROM deliveries WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get delivery %d: %w", id, err)
	}
	return &d, nil
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

// SaveDeliveryAttempt records the outcome of an attempt; then (completing
// the dispatcher's job once the delivery is done or failed) runs in the
// same transaction.
func (s *Store) SaveDeliveryAttempt(ctx context.Context, d *Delivery, then TxHook) error {
	err := s.execThen(ctx, then, nil, `UPDATE deliveries SET attempts = ?, next_at = ?, status = ?, last_error = ? WHERE id = ?`,
		d.Attempts, Timestamp(d.NextAt), d.Status, d.LastError, d.ID)
	if err != nil {
		return fmt.Errorf("save delivery %d: %w", d.ID, err)
	}
	return nil
}
