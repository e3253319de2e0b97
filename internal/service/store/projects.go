package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// Project is the stored record of a clip project: the store's own fields,
// kept in columns of the projects table, so the API's JSON can change
// without touching stored data. API (project_api.go) maps it to the wire.
type Project struct {
	ID, OrgID, UserID string
	Stage             apitypes.Stage
	Visibility        string
	SourcePlatform    string
	SourceID          string
	// VideoURL is the create request's videoUrl as sent: IMPORT reads it,
	// and the API shows it as sourceUri.
	VideoURL        string
	Model           *string
	BrandTemplateID *string
	ProductTier     string
	StorageSize     int64
	StorageStatus   string
	StorageExpireAt time.Time // zero: never
	Error           *string
	StallCount      *int64
	// FailureStalls counts the stalls caused by transient failures of the
	// project's own run; they use up its retries. Stalls caused by a restart
	// of clipperd raise StallCount only, so restarts never give up a project.
	FailureStalls int64
	// RetryAt, when set on a STALLED project, is when the service retries it.
	RetryAt      time.Time
	RefundStatus *string
	// CreditsCharged counts the credits taken for this project so far.
	CreditsCharged int64
	// SourceKey is the blob key of the imported source, once IMPORT has run.
	SourceKey         string
	SourceDurationSec float64
	CreatedAt         time.Time
	UpdatedAt         time.Time
	// RunToken names the project's current run: every requeue raises it,
	// and a run writes only while the project still carries its token
	// (runs.go), so a run some other process took over writes nothing.
	RunToken int64
	// LeaseUntil, set while a run holds the project, is when the run is
	// taken for dead unless its heartbeat renews it (runs.go).
	LeaseUntil time.Time
	// Interruptions counts the runs in a row whose lease ended without an
	// outcome (their process died, or their writes kept failing); a run's
	// outcome (COMPLETE, a stall, an import handed off) resets it. The
	// pipeline backs off on it and gives up past a bound.
	Interruptions int64

	// The preferences of the create request, which the project echoes and
	// the pipeline reads. They are the user's own documents, kept in one
	// JSON column (projectPrefs) in the shape the API accepts them.
	CurationPref      *apitypes.CurationPref
	RenderPref        *apitypes.RenderPref
	ImportPref        *apitypes.ImportPref
	UploadedVideoAttr *apitypes.UploadedVideoAttr
	ConclusionActions []apitypes.ConclusionAction
}

// projectPrefs is the projects.prefs column. Its keys are the store's; the
// values are the request's documents, echoed as sent.
type projectPrefs struct {
	CurationPref      *apitypes.CurationPref      `json:"curationPref,omitempty"`
	RenderPref        *apitypes.RenderPref        `json:"renderPref,omitempty"`
	ImportPref        *apitypes.ImportPref        `json:"importPref,omitempty"`
	UploadedVideoAttr *apitypes.UploadedVideoAttr `json:"uploadedVideoAttr,omitempty"`
	ConclusionActions []apitypes.ConclusionAction `json:"conclusionActions,omitempty"`
}

// projectColumns lists the projects columns in the order scanProject reads
// and projectValues writes them.
const projectColumns = projectColumnsV4 + `, run_token, lease_until, interruptions`

const projectAssignments = `org_id = ?, user_id = ?, stage = ?, visibility = ?, source_platform = ?, source_id = ?,
	video_url = ?, model = ?, brand_template_id = ?, product_tier = ?, storage_size = ?, storage_status = ?,
	storage_expire_at = ?, error = ?, stall_count = ?, failure_stalls = ?, retry_at = ?, refund_status = ?,
	credits_charged = ?, source_path = ?, source_duration_sec = ?, created_at = ?, updated_at = ?, prefs = ?,
	run_token = ?, lease_until = ?, interruptions = ?`

// projectValues are p's column values, in projectColumns order.
func projectValues(p *Project) ([]any, error) {
	prefs, err := json.Marshal(projectPrefs{
		CurationPref: p.CurationPref, RenderPref: p.RenderPref, ImportPref: p.ImportPref,
		UploadedVideoAttr: p.UploadedVideoAttr, ConclusionActions: p.ConclusionActions,
	})
	if err != nil {
		return nil, fmt.Errorf("encode preferences of project %s: %w", p.ID, err)
	}
	return []any{p.ID, p.OrgID, p.UserID, string(p.Stage), p.Visibility, p.SourcePlatform, p.SourceID, p.VideoURL, p.Model,
		p.BrandTemplateID, p.ProductTier, p.StorageSize, p.StorageStatus, timeText(p.StorageExpireAt), p.Error, p.StallCount,
		p.FailureStalls, nullTime(p.RetryAt), p.RefundStatus, p.CreditsCharged, p.SourceKey, p.SourceDurationSec,
		timeText(p.CreatedAt), timeText(p.UpdatedAt), string(prefs), p.RunToken, nullTime(p.LeaseUntil), p.Interruptions}, nil
}

func scanProject(row scanner) (*Project, error) {
	var p Project
	var prefs string
	err := row.Scan(&p.ID, &p.OrgID, &p.UserID, &p.Stage, &p.Visibility, &p.SourcePlatform, &p.SourceID, &p.VideoURL, &p.Model,
		&p.BrandTemplateID, &p.ProductTier, &p.StorageSize, &p.StorageStatus, timeCol{&p.StorageExpireAt}, &p.Error, &p.StallCount,
		&p.FailureStalls, timeCol{&p.RetryAt}, &p.RefundStatus, &p.CreditsCharged, &p.SourceKey, &p.SourceDurationSec,
		timeCol{&p.CreatedAt}, timeCol{&p.UpdatedAt}, &prefs, &p.RunToken, timeCol{&p.LeaseUntil}, &p.Interruptions)
	if err != nil {
		return nil, err
	}
	var pr projectPrefs
	if err := json.Unmarshal([]byte(prefs), &pr); err != nil {
		return nil, fmt.Errorf("decode preferences of project %s: %w", p.ID, err)
	}
	p.CurationPref, p.RenderPref, p.ImportPref = pr.CurationPref, pr.RenderPref, pr.ImportPref
	p.UploadedVideoAttr, p.ConclusionActions = pr.UploadedVideoAttr, pr.ConclusionActions
	return &p, nil
}

// ErrConcurrentCap is returned by CreateProject when the org has too many projects in flight.
var ErrConcurrentCap = errors.New("concurrent project limit reached")

// Admission holds the limits checked when a project is created.
type Admission struct {
	MaxConcurrent  int   // <= 0: no limit
	MonthlyCredits int64 // <= 0: no limit
	Reserve        int64 // credits taken at creation (the API minimum)
	StorageQuota   int64 // bytes of uploads and media per org; <= 0: no quota
}

// CreateProject inserts p if the org is under its concurrent cap and its
// storage quota and has Reserve credits left this month, taking those
// credits, all in one transaction so parallel creates cannot overshoot a
// limit.
func (s *Store) CreateProject(ctx context.Context, p *Project, adm Admission) error {
	return s.CreateProjectThen(ctx, p, adm, nil)
}

// CreateProjectThen is CreateProject that also runs then in the
// transaction, once p is stored: the pipeline's job of a QUEUED project
// exists exactly when the project does.
func (s *Store) CreateProjectThen(ctx context.Context, p *Project, adm Admission, then TxHook) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.lockOrg(ctx, tx, p.OrgID); err != nil {
			return err
		}
		if adm.MaxConcurrent > 0 {
			n, err := countActive(ctx, tx, p.OrgID)
			if err != nil {
				return err
			}
			if n >= adm.MaxConcurrent {
				return ErrConcurrentCap
			}
		}
		if err := checkStorage(ctx, tx, p.OrgID, 0, adm.StorageQuota); err != nil {
			return err
		}
		if err := s.chargeCredits(ctx, tx, p.OrgID, s.Now(), adm.Reserve, adm.MonthlyCredits); err != nil {
			return err
		}
		p.CreditsCharged = adm.Reserve
		vals, err := projectValues(p)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO projects(`+projectColumns+`) VALUES (`+placeholders(len(vals))+`)`, vals...)
		if err != nil {
			return fmt.Errorf("insert project %s: %w", p.ID, err)
		}
		return then.run(ctx, tx)
	})
}

// countActive counts the org's projects that hold a concurrent slot: those
// in flight, and STALLED ones with a retry planned (they go back to QUEUED
// by themselves, so they still hold their place).
func countActive(ctx context.Context, q querier, orgID string) (int, error) {
	inFlight := apitypes.StagesWhere(apitypes.Stage.InFlight)
	var n int
	err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM projects WHERE org_id = ?
		AND (stage IN (`+placeholders(len(inFlight))+`) OR (stage = ? AND retry_at IS NOT NULL))`,
		append(append([]any{orgID}, anySlice(inFlight)...), apitypes.StageStalled)...).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count active projects: %w", err)
	}
	return n, nil
}

// GetProject returns the project with id; ErrNotFound when absent. Callers
// that serve an org check OrgID themselves (another org's project is a 404).
func (s *Store) GetProject(ctx context.Context, id string) (*Project, error) {
	return getProject(ctx, s.db, id)
}

func getProject(ctx context.Context, q querier, id string) (*Project, error) {
	p, err := queryOne(ctx, q, scanProject, `SELECT `+projectColumns+` FROM projects WHERE id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("get project %s: %w", id, err)
	}
	return p, nil
}

// getProjectForUpdate reads project id in tx to rewrite it: a second
// transaction doing the same waits for tx and reads what it wrote.
func (s *Store) getProjectForUpdate(ctx context.Context, tx *sql.Tx, id string) (*Project, error) {
	p, err := queryOne(ctx, tx, scanProject, `SELECT `+projectColumns+` FROM projects WHERE id = ?`+s.forUpdate(), id)
	if err != nil {
		return nil, fmt.Errorf("get project %s: %w", id, err)
	}
	return p, nil
}

// putProject writes every column of p.
func putProject(ctx context.Context, tx execer, p *Project) error {
	vals, err := projectValues(p)
	if err != nil {
		return err
	}
	// The id is the key: every other value is assigned, then matched on id.
	if _, err := tx.ExecContext(ctx, `UPDATE projects SET `+projectAssignments+` WHERE id = ?`, append(vals[1:], p.ID)...); err != nil {
		return fmt.Errorf("update project %s: %w", p.ID, err)
	}
	return nil
}

// MutateProject reads the project, lets fn change it and writes it back in
// one transaction, stamping updatedAt. fn returning an error aborts the write.
func (s *Store) MutateProject(ctx context.Context, id string, fn func(*Project) error) (*Project, error) {
	p, _, err := s.MutateProjectWithEffects(ctx, id, func(p *Project) (Effects, error) {
		return Effects{}, fn(p)
	})
	return p, err
}

// ProjectsInStages lists the projects in any of stages, oldest first.
func (s *Store) ProjectsInStages(ctx context.Context, stages ...apitypes.Stage) ([]*Project, error) {
	if len(stages) == 0 {
		return nil, nil
	}
	ps, err := queryAll(ctx, s.db, scanProject, `SELECT `+projectColumns+` FROM projects
		WHERE stage IN (`+placeholders(len(stages))+`) ORDER BY created_at, id`, anySlice(stages)...)
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	return ps, nil
}

// DueRetries lists the ids of STALLED projects whose retryAt has passed,
// oldest first; permanently stalled projects (no retryAt) are not read.
func (s *Store) DueRetries(ctx context.Context) ([]string, error) {
	ids, err := queryAll(ctx, s.db, scanString, `SELECT id FROM projects
		WHERE stage = ? AND retry_at IS NOT NULL AND retry_at <= ? ORDER BY created_at, id`,
		apitypes.StageStalled, Timestamp(s.Now()))
	if err != nil {
		return nil, fmt.Errorf("due retries: %w", err)
	}
	return ids, nil
}

func scanString(row scanner) (string, error) {
	var s string
	err := row.Scan(&s)
	return s, err
}

// ChargeProjectCredits raises the credits charged for project id to total,
// taking only the difference from the org's month (nothing when the project
// was already charged that much, as on a retry). It returns a
// *quota.MonthlyCapError, leaving everything unchanged, when the difference
// would pass limit (<= 0: no limit).
func (s *Store) ChargeProjectCredits(ctx context.Context, id string, total, limit int64) (*Project, error) {
	var out *Project
	err := s.tx(ctx, func(tx *sql.Tx) error {
		p, err := s.getProjectForUpdate(ctx, tx, id)
		if err != nil {
			return err
		}
		if extra := total - p.CreditsCharged; extra > 0 {
			if err := s.chargeCredits(ctx, tx, p.OrgID, s.Now(), extra, limit); err != nil {
				return err
			}
			p.CreditsCharged = total
			p.UpdatedAt = stamp(s.Now())
			if err := putProject(ctx, tx, p); err != nil {
				return err
			}
		}
		out = p
		return nil
	})
	return out, err
}
