package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// Project is a project record: the API view plus what the pipeline needs.
type Project struct {
	apitypes.Project
	// Request keeps of the create body only the videoUrl as sent, which
	// IMPORT reads; every other field is echoed on the project (curationPref,
	// renderPref, importPref, brandTemplateId, uploadedVideoAttr,
	// conclusionActions) and read from there. CreateProject drops the rest.
	Request apitypes.CreateProjectRequest `json:"request"`
	// SourcePath is the imported media under the data dir, once IMPORT has run.
	SourcePath        string  `json:"sourcePath,omitempty"`
	SourceDurationSec float64 `json:"sourceDurationSec,omitempty"`
	// CreditsCharged counts the credits taken for this project so far.
	CreditsCharged int64 `json:"creditsCharged,omitempty"`
	// RetryAt, when set on a STALLED project, is when the service retries it.
	RetryAt string `json:"retryAt,omitempty"`
	// FailureStalls counts the stalls caused by transient failures of the
	// project's own run; they use up its retries. Stalls caused by a restart
	// of clipperd raise stallCount only, so restarts never give up a project.
	FailureStalls int64 `json:"failureStalls,omitempty"`
}

// ErrConcurrentCap is returned by CreateProject when the org has too many projects in flight.
var ErrConcurrentCap = errors.New("concurrent project limit reached")

// MonthlyCapError is returned when a charge would pass the monthly credit cap.
type MonthlyCapError struct {
	Used, Needed, Cap int64
	ResetAt           time.Time
}

func (e *MonthlyCapError) Error() string {
	return fmt.Sprintf("monthly API cap of %d credits reached (%d used, %d needed); resets at %s",
		e.Cap, e.Used, e.Needed, e.ResetAt.Format(time.RFC3339))
}

// Admission holds the limits checked when a project is created.
type Admission struct {
	MaxConcurrent  int   // <= 0: no limit
	MonthlyCredits int64 // <= 0: no limit
	Reserve        int64 // credits taken at creation (the API minimum)
}

// CreateProject inserts p if the org is under its concurrent cap and has
// Reserve credits left this month, taking those credits, all in one
// transaction so parallel creates cannot overshoot either limit.
func (s *Store) CreateProject(ctx context.Context, p *Project, adm Admission) error {
	p.Request = apitypes.CreateProjectRequest{VideoURL: p.Request.VideoURL} // one copy of the rest: the echo
	return s.tx(ctx, func(tx *sql.Tx) error {
		if adm.MaxConcurrent > 0 {
			n, err := countActive(ctx, tx, p.OrgID)
			if err != nil {
				return err
			}
			if n >= adm.MaxConcurrent {
				return ErrConcurrentCap
			}
		}
		if err := chargeCredits(ctx, tx, p.OrgID, s.Now(), adm.Reserve, adm.MonthlyCredits); err != nil {
			return err
		}
		p.CreditsCharged = adm.Reserve
		data, err := json.Marshal(p)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO projects(id, org_id, stage, created_at, data) VALUES (?, ?, ?, ?, ?)`,
			p.ID, p.OrgID, p.Stage, p.CreatedAt, string(data))
		return err
	})
}

func countActive(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, orgID string) (int, error) {
	var n int
	// In-flight projects count against the cap, and so does a STALLED
	// project with a retry planned: it goes back to QUEUED by itself, so it
	// still holds its place.
	inFlight := apitypes.StagesWhere(apitypes.Stage.InFlight)
	err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM projects WHERE org_id = ? AND (stage IN (`+placeholders(len(inFlight))+`)
		OR (stage = ? AND COALESCE(json_extract(data, '$.retryAt'), '') <> ''))`,
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

func getProject(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, id string) (*Project, error) {
	var data string
	err := q.QueryRowContext(ctx, `SELECT data FROM projects WHERE id = ?`, id).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get project %s: %w", id, err)
	}
	var p Project
	if err := json.Unmarshal([]byte(data), &p); err != nil {
		return nil, fmt.Errorf("decode project %s: %w", id, err)
	}
	return &p, nil
}

// MutateProject reads the project, lets fn change it and writes it back in
// one transaction, stamping updatedAt. fn returning an error aborts the write.
func (s *Store) MutateProject(ctx context.Context, id string, fn func(*Project) error) (*Project, error) {
	var out *Project
	err := s.tx(ctx, func(tx *sql.Tx) error {
		p, err := getProject(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := fn(p); err != nil {
			return err
		}
		p.UpdatedAt = Timestamp(s.Now())
		if err := putProject(ctx, tx, p); err != nil {
			return err
		}
		out = p
		return nil
	})
	return out, err
}

// ProjectsInStages lists the projects in any of stages, oldest first.
func (s *Store) ProjectsInStages(ctx context.Context, stages ...apitypes.Stage) ([]*Project, error) {
	if len(stages) == 0 {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT data FROM projects WHERE stage IN (`+placeholders(len(stages))+`) ORDER BY created_at, id`, anySlice(stages)...)
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	defer rows.Close()
	var out []*Project
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return nil, err
		}
		var p Project
		if err := json.Unmarshal([]byte(data), &p); err != nil {
			return nil, err
		}
		out = append(out, &p)
	}
	return out, rows.Err()
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

func anySlice[T any](ss []T) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
