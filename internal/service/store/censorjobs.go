package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// CensorJob is a censor job: one clip's audio with the words of the
// profanity list silenced or beeped, made in the background (package
// censorjobs).
type CensorJob struct {
	ID        string
	OrgID     string
	ProjectID string
	ClipID    string // the bare clip id, the clip's curationId
	Beep      bool   // a 1 kHz beep over each word instead of silence
	Status    string // apitypes.CensorQueued, CensorProcessing, CensorConcluded or CensorFailed
	Error     string // why a FAILED job failed
	Words     int    // how many words a CONCLUDED job censored
	CreatedAt time.Time
	UpdatedAt time.Time
}

// API is the job as GET /api/censor-jobs/{jobId} answers it: error is null
// unless the job FAILED.
func (j *CensorJob) API() apitypes.CensorJobStatus {
	st := apitypes.CensorJobStatus{Status: j.Status}
	if j.Status == apitypes.CensorFailed {
		msg := j.Error
		st.Error = &msg
	}
	return st
}

const censorJobColumns = `id, org_id, project_id, clip_id, beep, status, error, words, created_at, updated_at`

func scanCensorJob(row scanner) (*CensorJob, error) {
	var j CensorJob
	err := row.Scan(&j.ID, &j.OrgID, &j.ProjectID, &j.ClipID, &j.Beep, &j.Status, &j.Error, &j.Words, timeCol{&j.CreatedAt}, timeCol{&j.UpdatedAt})
	return &j, err
}

// CreateCensorJob stores j as a new QUEUED job with a new id; enqueue (the
// worker's job) runs in the same transaction as the insert.
func (s *Store) CreateCensorJob(ctx context.Context, j *CensorJob, enqueue TxHook) error {
	now := stamp(s.Now())
	j.ID, j.CreatedAt, j.UpdatedAt = NewID("cj_"), now, now
	j.Status, j.Error, j.Words = apitypes.CensorQueued, "", 0
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO censor_jobs(`+censorJobColumns+`) VALUES (`+placeholders(10)+`)`,
			j.ID, j.OrgID, j.ProjectID, j.ClipID, boolInt(j.Beep), j.Status, j.Error, j.Words, timeText(j.CreatedAt), timeText(j.UpdatedAt))
		if err != nil {
			return fmt.Errorf("insert censor job: %w", err)
		}
		return enqueue.run(ctx, tx)
	})
}

// CensorJob returns the job id; ErrNotFound when absent. Callers serving an
// org check OrgID themselves.
func (s *Store) CensorJob(ctx context.Context, id string) (*CensorJob, error) {
	j, err := scanCensorJob(s.db.QueryRowContext(ctx, `SELECT `+censorJobColumns+` FROM censor_jobs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get censor job %s: %w", id, err)
	}
	return j, nil
}

// StartCensorJob marks a QUEUED job PROCESSING; a PROCESSING job (one a
// stopped process left) stays so. It is false when the job has an outcome
// already.
func (s *Store) StartCensorJob(ctx context.Context, id string) (bool, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE censor_jobs SET status = ?, updated_at = ? WHERE id = ? AND status IN (?, ?)`,
		apitypes.CensorProcessing, Timestamp(s.Now()), id, apitypes.CensorQueued, apitypes.CensorProcessing)
	if err != nil {
		return false, fmt.Errorf("start censor job %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// FinishCensorJob records the outcome of an unfinished job: its status,
// error and the number of words censored. A finished job is left as it is.
// then (completing the worker's job) runs in the same transaction.
func (s *Store) FinishCensorJob(ctx context.Context, j *CensorJob, then TxHook) error {
	j.UpdatedAt = stamp(s.Now())
	err := s.execThen(ctx, then, nil, `UPDATE censor_jobs SET status = ?, error = ?, words = ?, updated_at = ?
		WHERE id = ? AND status IN (?, ?)`,
		j.Status, j.Error, j.Words, timeText(j.UpdatedAt), j.ID, apitypes.CensorQueued, apitypes.CensorProcessing)
	if err != nil {
		return fmt.Errorf("finish censor job %s: %w", j.ID, err)
	}
	return nil
}

// UnfinishedCensorJobs lists the ids of the QUEUED and PROCESSING jobs,
// oldest first.
func (s *Store) UnfinishedCensorJobs(ctx context.Context) ([]string, error) {
	ids, err := queryAll(ctx, s.db, scanString, `SELECT id FROM censor_jobs WHERE status IN (?, ?) ORDER BY created_at, rowid`,
		apitypes.CensorQueued, apitypes.CensorProcessing)
	if err != nil {
		return nil, fmt.Errorf("unfinished censor jobs: %w", err)
	}
	return ids, nil
}
