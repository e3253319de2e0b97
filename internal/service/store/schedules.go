package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
)

// Publish schedule statuses.
const (
	SchedulePending   = "pending"
	ScheduleFired     = "fired" // its post was made (PostID)
	ScheduleCancelled = "cancelled"
)

// Schedule is a post to be made at PublishAt.
type Schedule struct {
	ID, OrgID string
	PostContent
	PublishAt time.Time
	Status    string
	PostID    string // the post it made, once fired
	CreatedAt time.Time
}

const scheduleColumns = `id, org_id, ` + postContentColumns + `, publish_at, status, post_id, created_at`

func scanSchedule(row scanner) (Schedule, error) {
	var sc Schedule
	var publishAt, created string
	var postID sql.NullString
	dest := append(append([]any{&sc.ID, &sc.OrgID}, sc.fields()...), &publishAt, &sc.Status, &postID, &created)
	if err := row.Scan(dest...); err != nil {
		return sc, err
	}
	sc.PublishAt, sc.CreatedAt, sc.PostID = parseTimestamp(publishAt), parseTimestamp(created), postID.String
	return sc, nil
}

// CreateSchedule stores a pending schedule of content for the org, due at publishAt.
func (s *Store) CreateSchedule(ctx context.Context, orgID string, content PostContent, publishAt time.Time) (*Schedule, error) {
	sc := &Schedule{ID: NewID("sch_"), OrgID: orgID, PostContent: content, PublishAt: publishAt.UTC(),
		Status: SchedulePending, CreatedAt: s.Now()}
	vals := append(append([]any{sc.ID, sc.OrgID}, sc.values()...), Timestamp(sc.PublishAt), sc.Status, nil, Timestamp(sc.CreatedAt))
	if _, err := s.db.ExecContext(ctx, `INSERT INTO publish_schedules(`+scheduleColumns+`) VALUES (`+placeholders(len(vals))+`)`, vals...); err != nil {
		return nil, fmt.Errorf("insert schedule: %w", err)
	}
	return sc, nil
}

// GetSchedule returns the schedule with id; ErrNotFound when absent.
func (s *Store) GetSchedule(ctx context.Context, id string) (*Schedule, error) {
	return getSchedule(ctx, s.db, id)
}

func getSchedule(ctx context.Context, q querier, id string) (*Schedule, error) {
	sc, err := queryOne(ctx, q, scanSchedule, `SELECT `+scheduleColumns+` FROM publish_schedules WHERE id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("get schedule %s: %w", id, err)
	}
	return &sc, nil
}

// CancelSchedule cancels the org's pending schedule id. ErrNotFound: it is
// unknown, another org's, or no longer pending (fired or cancelled), which
// the API tells alike.
func (s *Store) CancelSchedule(ctx context.Context, orgID, id string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE publish_schedules SET status = ? WHERE id = ? AND org_id = ? AND status = ?`,
		ScheduleCancelled, id, orgID, SchedulePending)
	if err != nil {
		return fmt.Errorf("cancel schedule %s: %w", id, err)
	}
	return oneRow(res, ErrNotFound)
}

// DueSchedules lists the ids of up to limit pending schedules whose
// publishAt has come, earliest first.
func (s *Store) DueSchedules(ctx context.Context, limit int) ([]string, error) {
	ids, err := queryAll(ctx, s.db, scanString, `SELECT id FROM publish_schedules
		WHERE status = ? AND publish_at <= ? ORDER BY publish_at, rowid LIMIT ?`, SchedulePending, Timestamp(s.Now()), limit)
	if err != nil {
		return nil, fmt.Errorf("due schedules: %w", err)
	}
	return ids, nil
}

// NextScheduleAt is the publishAt of the earliest pending schedule; ok is
// false when none is pending.
func (s *Store) NextScheduleAt(ctx context.Context) (next time.Time, ok bool, err error) {
	var at sql.NullString
	if err := s.db.QueryRowContext(ctx, `SELECT MIN(publish_at) FROM publish_schedules WHERE status = ?`,
		SchedulePending).Scan(&at); err != nil {
		return time.Time{}, false, fmt.Errorf("next schedule: %w", err)
	}
	return parseTimestamp(at.String), at.Valid, nil
}

// FireSchedule makes the post of pending schedule id and marks the schedule
// fired, in one transaction, so a schedule makes its post exactly once
// however often, by however many processes, and after however many crashes,
// it is fired: the mark is a conditional update that only a pending
// schedule passes. The post is charged and its storage reserved then, as
// CreatePost does (a post over a limit is made failed, saying why), and
// enqueue (the publish worker's job, nil: none) runs for a pending post in
// the same transaction. A schedule that is no longer pending is left alone:
// the answer is nil, nil.
func (s *Store) FireSchedule(ctx context.Context, id string, limits PostLimits, enqueue func(*Post) TxHook) (*Post, error) {
	// A schedule's content never changes: the copy is sized before the
	// transaction, from the schedule as it is now.
	pre, err := getSchedule(ctx, s.db, id)
	if err != nil {
		return nil, err
	}
	if pre.Status != SchedulePending {
		return nil, nil
	}
	size, err := limits.copySize(ctx, pre.PostContent)
	if err != nil {
		return nil, err
	}
	var out *Post
	err = s.tx(ctx, func(tx *sql.Tx) error {
		// Locked, a second firing waits for this one and finds it fired.
		sc, err := queryOne(ctx, tx, scanSchedule, `SELECT `+scheduleColumns+` FROM publish_schedules WHERE id = ?`+s.forUpdate(), id)
		if errors.Is(err, ErrNotFound) {
			return fmt.Errorf("get schedule %s: %w", id, err)
		}
		if err != nil || sc.Status != SchedulePending {
			return err
		}
		p, err := s.scheduledPost(ctx, tx, &sc, s.Now(), limits, size)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE publish_schedules SET status = ?, post_id = ? WHERE id = ? AND status = ?`,
			ScheduleFired, p.ID, sc.ID, SchedulePending)
		if err != nil {
			return fmt.Errorf("mark schedule %s fired: %w", sc.ID, err)
		}
		if err := oneRow(res, ErrNotPending); err != nil {
			return err
		}
		if err := insertPost(ctx, tx, p); err != nil {
			return err
		}
		if err := enqueuePost(ctx, tx, p, enqueue); err != nil {
			return err
		}
		out = p
		return nil
	})
	if errors.Is(err, ErrNotPending) {
		return nil, nil // another process fired it first
	}
	return out, err
}

// scheduledPost is the post sc makes at now: pending, charged and its copy
// of size bytes reserved, or, when it cannot be made (the month's credits
// are spent, the storage quota is, the account is gone), failed and saying
// why, so the schedule still fires once and the reason stays on record.
func (s *Store) scheduledPost(ctx context.Context, tx *sql.Tx, sc *Schedule, now time.Time, limits PostLimits, size int64) (*Post, error) {
	p, err := newPost(ctx, tx, sc.OrgID, sc.PostContent, now)
	switch {
	case errors.Is(err, ErrNotFound):
		p = &Post{ID: NewID("post_"), OrgID: sc.OrgID, PostContent: sc.PostContent, NextAt: now, CreatedAt: now}
		p.Status, p.LastError = PostFailed, fmt.Sprintf("social account %s is no longer connected to organization %s", sc.PostAccountID, sc.OrgID)
	case err != nil:
		return nil, err
	default:
		// Storage first: a post refused there is charged nothing.
		err := s.reservePostStorage(ctx, tx, p, size, limits.StorageQuota)
		if err == nil {
			err = s.chargePost(ctx, tx, p, limits.MonthlyCap)
		}
		var capErr *quota.MonthlyCapError
		var storageErr *quota.StorageQuotaError
		if errors.As(err, &capErr) || errors.As(err, &storageErr) {
			p.Status, p.LastError, p.StorageSize = PostFailed, err.Error(), 0
		} else if err != nil {
			return nil, err
		}
	}
	p.ScheduleID = sc.ID
	return p, nil
}
