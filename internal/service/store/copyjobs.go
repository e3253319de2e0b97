package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// CopyJob is a social copy job: post copy for one clip and one connected
// account, generated in the background (package copyjobs) or reused from an
// earlier job.
type CopyJob struct {
	ID            string
	OrgID         string
	ProjectID     string
	ClipID        string // the bare clip id, the clip's curationId
	PostAccountID string
	SubAccountID  string
	Prompt        string
	Platform      string // the account's platform when the job was created
	Status        string // apitypes.CopyRunning, CopyCompleted or CopyFailed
	Cached        bool   // the result is an earlier job's
	Title         string
	Description   string
	Hashtags      string
	Error         string // why a FAILED job failed
	// ClipVersion is the updatedAt of the clip the copy is made from: a
	// result is reused only while the clip is unchanged, so a project run
	// again (new clips, new text) gets new copy.
	ClipVersion string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// API is the job as GET /api/social-copy-jobs/{jobId} answers it.
func (j *CopyJob) API() apitypes.SocialCopyJob {
	return apitypes.SocialCopyJob{
		JobID: j.ID, Status: j.Status, Cached: j.Cached,
		Title: j.Title, Description: j.Description, Hashtags: j.Hashtags, Error: j.Error,
	}
}

const copyJobColumns = `id, org_id, project_id, clip_id, post_account_id, sub_account_id, prompt, platform, status, cached,
	title, description, hashtags, error, clip_version, created_at, updated_at`

func copyJobValues(j *CopyJob) []any {
	return []any{j.ID, j.OrgID, j.ProjectID, j.ClipID, j.PostAccountID, j.SubAccountID, j.Prompt, j.Platform, j.Status,
		boolInt(j.Cached), j.Title, j.Description, j.Hashtags, j.Error, j.ClipVersion, timeText(j.CreatedAt), timeText(j.UpdatedAt)}
}

func scanCopyJob(row scanner) (*CopyJob, error) {
	var j CopyJob
	err := row.Scan(&j.ID, &j.OrgID, &j.ProjectID, &j.ClipID, &j.PostAccountID, &j.SubAccountID, &j.Prompt, &j.Platform, &j.Status,
		&j.Cached, &j.Title, &j.Description, &j.Hashtags, &j.Error, &j.ClipVersion, timeCol{&j.CreatedAt}, timeCol{&j.UpdatedAt})
	return &j, err
}

// CreateCopyJob stores j as a new job with a new id. Unless regenerate, the
// result of the newest job generated for the same organization, project,
// clip, account, sub-account, prompt and platform from the clip as it is now
// (j.ClipVersion) is reused: j is stored COMPLETED and Cached with that
// result. Otherwise j is stored RUNNING, for the worker to generate, and
// enqueue (the worker's job) runs in the same transaction as the insert, as
// does the lookup.
func (s *Store) CreateCopyJob(ctx context.Context, j *CopyJob, regenerate bool, enqueue TxHook) error {
	now := stamp(s.Now())
	j.ID, j.CreatedAt, j.UpdatedAt = NewID("scj_"), now, now
	j.Status, j.Cached, j.Title, j.Description, j.Hashtags, j.Error = apitypes.CopyRunning, false, "", "", "", ""
	return s.tx(ctx, func(tx *sql.Tx) error {
		if !regenerate {
			earlier, err := scanCopyJob(tx.QueryRowContext(ctx, `SELECT `+copyJobColumns+` FROM social_copy_jobs
				WHERE org_id = ? AND project_id = ? AND clip_id = ? AND post_account_id = ? AND sub_account_id = ? AND prompt = ?
					AND status = ? AND cached = 0 AND platform = ? AND clip_version = ?
				ORDER BY updated_at DESC, rowid DESC LIMIT 1`,
				j.OrgID, j.ProjectID, j.ClipID, j.PostAccountID, j.SubAccountID, j.Prompt, apitypes.CopyCompleted, j.Platform, j.ClipVersion))
			switch {
			case err == nil:
				j.Status, j.Cached = apitypes.CopyCompleted, true
				j.Title, j.Description, j.Hashtags = earlier.Title, earlier.Description, earlier.Hashtags
			case !errors.Is(err, sql.ErrNoRows):
				return fmt.Errorf("look up a cached copy: %w", err)
			}
		}
		vals := copyJobValues(j)
		if _, err := tx.ExecContext(ctx, `INSERT INTO social_copy_jobs(`+copyJobColumns+`) VALUES (`+placeholders(len(vals))+`)`, vals...); err != nil {
			return fmt.Errorf("insert copy job: %w", err)
		}
		if j.Status != apitypes.CopyRunning {
			return nil
		}
		return enqueue.run(ctx, tx)
	})
}

// CopyJob returns the job id; ErrNotFound when absent. Callers serving an
// org check OrgID themselves.
func (s *Store) CopyJob(ctx context.Context, id string) (*CopyJob, error) {
	j, err := scanCopyJob(s.db.QueryRowContext(ctx, `SELECT `+copyJobColumns+` FROM social_copy_jobs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get copy job %s: %w", id, err)
	}
	return j, nil
}

// FinishCopyJob records the outcome of a RUNNING job: its status, its
// result or error, and the clip version the copy was made from. A job that
// is no longer RUNNING is left as it is. then (completing the worker's job)
// runs in the same transaction.
func (s *Store) FinishCopyJob(ctx context.Context, j *CopyJob, then TxHook) error {
	j.UpdatedAt = stamp(s.Now())
	err := s.execThen(ctx, then, nil, `UPDATE social_copy_jobs SET status = ?, title = ?, description = ?, hashtags = ?, error = ?,
		clip_version = ?, updated_at = ? WHERE id = ? AND status = ?`,
		j.Status, j.Title, j.Description, j.Hashtags, j.Error, j.ClipVersion, timeText(j.UpdatedAt), j.ID, apitypes.CopyRunning)
	if err != nil {
		return fmt.Errorf("finish copy job %s: %w", j.ID, err)
	}
	return nil
}

// RunningCopyJobs lists the ids of the jobs still RUNNING, oldest first.
func (s *Store) RunningCopyJobs(ctx context.Context) ([]string, error) {
	ids, err := queryAll(ctx, s.db, scanString, `SELECT id FROM social_copy_jobs WHERE status = ? ORDER BY created_at, rowid`, apitypes.CopyRunning)
	if err != nil {
		return nil, fmt.Errorf("running copy jobs: %w", err)
	}
	return ids, nil
}
