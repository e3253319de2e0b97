package store

import (
	"context"
	"database/sql"
)

// Store methods the pipeline needs beyond the core: writes that must land
// together with a project change, so a crash between them cannot double
// charge (or double refund) credits or lose (or duplicate) a conclusion action.

// RefundStatusRefunded is Project.refundStatus once the credits of a project
// that produced nothing were given back.
const RefundStatusRefunded = "REFUNDED"

// Effects are what a project change writes beside the project itself, in
// the same transaction.
type Effects struct {
	// Deliveries are new pending conclusion actions of the project.
	Deliveries []Delivery
	// Enqueue, when set, gives each new delivery its job (the outbound
	// dispatcher's), in the same transaction, once the delivery has its id.
	Enqueue func(*Delivery) TxHook
	// Refund gives back every credit charged for the project and sets its
	// refundStatus to REFUNDED; a project already refunded is left as is.
	Refund bool
	// Then runs last in the transaction, after the project is written:
	// the job of a project queued again (package pipeline).
	Then TxHook
}

// MutateProjectWithEffects is MutateProject where fn may also ask for
// Effects; the project change, the new deliveries and the refund are written
// in one transaction. The stored deliveries (with ids) are returned.
func (s *Store) MutateProjectWithEffects(ctx context.Context, id string, fn func(*Project) (Effects, error)) (*Project, []Delivery, error) {
	var out *Project
	var queued []Delivery
	err := s.tx(ctx, func(tx *sql.Tx) error {
		p, err := s.getProjectForUpdate(ctx, tx, id)
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
		p.UpdatedAt = stamp(now)
		if err := putProject(ctx, tx, p); err != nil {
			return err
		}
		queued = queued[:0]
		for _, d := range eff.Deliveries {
			d.ProjectID = id
			if err := insertDelivery(ctx, tx, &d, now); err != nil {
				return err
			}
			if eff.Enqueue != nil {
				if err := eff.Enqueue(&d).run(ctx, tx); err != nil {
					return err
				}
			}
			queued = append(queued, d)
		}
		if err := eff.Then.run(ctx, tx); err != nil {
			return err
		}
		out = p
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, queued, nil
}
