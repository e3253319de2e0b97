package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Upload is a local-file upload: a link handed out by POST /api/upload-links
// and the bytes received on the object-storage side so far.
type Upload struct {
	ID        string
	OrgID     string
	UserID    string
	SessionID string // x-store-resumable-upload-id, set when the resumable session starts
	Key       string // the blob key of the bytes (blob.UploadKey), never a path
	Total     int64  // declared size, -1 until known
	Received  int64  // contiguous bytes written from offset 0
	Complete  bool
	CreatedAt time.Time
}

// SaveUpload inserts a new upload (CreatedAt unset) or updates a stored
// one. An update of an upload that is gone (the janitor deleted it as
// expired) is ErrNotFound: a PUT still running never brings it back.
func (s *Store) SaveUpload(ctx context.Context, u *Upload) error {
	if u.CreatedAt.IsZero() {
		u.CreatedAt = stamp(s.Now())
		_, err := s.db.ExecContext(ctx, `INSERT INTO uploads(id, org_id, user_id, session_id, path, total, received, complete, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			u.ID, u.OrgID, u.UserID, u.SessionID, u.Key, u.Total, u.Received, boolInt(u.Complete), timeText(u.CreatedAt))
		if err != nil {
			u.CreatedAt = time.Time{}
			return fmt.Errorf("save upload %s: %w", u.ID, err)
		}
		return nil
	}
	res, err := s.db.ExecContext(ctx, `UPDATE uploads SET session_id = ?, path = ?, total = ?, received = ?, complete = ? WHERE id = ?`,
		u.SessionID, u.Key, u.Total, u.Received, boolInt(u.Complete), u.ID)
	if err != nil {
		return fmt.Errorf("save upload %s: %w", u.ID, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("save upload %s: %w", u.ID, ErrNotFound)
	}
	return nil
}

// GetUpload returns an upload by its uploadId; ErrNotFound when absent.
func (s *Store) GetUpload(ctx context.Context, id string) (*Upload, error) {
	return s.getUpload(ctx, `id = ?`, id)
}

// GetUploadBySession returns an upload by its resumable session id.
func (s *Store) GetUploadBySession(ctx context.Context, sessionID string) (*Upload, error) {
	if sessionID == "" {
		return nil, ErrNotFound
	}
	return s.getUpload(ctx, `session_id = ?`, sessionID)
}

func (s *Store) getUpload(ctx context.Context, where string, arg string) (*Upload, error) {
	u, err := queryOne(ctx, s.db, scanUpload, `SELECT `+uploadColumns+` FROM uploads WHERE `+where, arg)
	if errors.Is(err, ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get upload: %w", err)
	}
	return u, nil
}

// uploadColumns lists the uploads columns in the order scanUpload reads them.
const uploadColumns = `id, org_id, user_id, session_id, path, total, received, complete, created_at`

func scanUpload(row scanner) (*Upload, error) {
	var u Upload
	var complete int
	if err := row.Scan(&u.ID, &u.OrgID, &u.UserID, &u.SessionID, &u.Key, &u.Total, &u.Received, &complete, timeCol{&u.CreatedAt}); err != nil {
		return nil, err
	}
	u.Complete = complete != 0
	return &u, nil
}

// AdvanceUpload moves upload id from holding `from` bytes to holding `to`
// (a chunk stored, or a rewind to drop one) and records total and
// complete (set only once the whole file is stored), only if it
// is still in session sessionID, incomplete, and holds `from`: several API
// nodes take the chunks of one upload, and this conditional update is what
// lets exactly one of two racing requests count its bytes. moved says
// whether it did; an upload that is gone is ErrNotFound.
func (s *Store) AdvanceUpload(ctx context.Context, id, sessionID string, from, to, total int64, complete bool) (moved bool, err error) {
	res, err := s.db.ExecContext(ctx, `UPDATE uploads SET received = ?, total = ?, complete = ?
		WHERE id = ? AND session_id = ? AND received = ? AND complete = 0`, to, total, boolInt(complete), id, sessionID, from)
	if err != nil {
		return false, fmt.Errorf("advance upload %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("advance upload %s: %w", id, err)
	}
	if n > 0 {
		return true, nil
	}
	if _, err := s.GetUpload(ctx, id); err != nil {
		return false, fmt.Errorf("advance upload %s: %w", id, err)
	}
	return false, nil
}
