package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// A project's run as pieces: the work of one run (transcription chunks,
// one render per clip) is planned as rows that any worker claims, so a
// long source spreads over every worker instead of holding one. A piece is
// leased like a run (a dead worker's piece is claimed again once its lease
// passed) and fenced twice: by the project's run token, which PlanPieces
// and ClaimPiece check, and by the piece's Attempt, which every claim
// raises and every write of a claim checks, so a claim taken over writes
// nothing.

// PieceState is where a piece of a project's run is.
type PieceState string

// The states of a piece.
const (
	PiecePending PieceState = "PENDING" // waiting for a worker
	PieceRunning PieceState = "RUNNING" // claimed; its lease says until when
	PieceDone    PieceState = "DONE"    // its result is stored
	PieceFailed  PieceState = "FAILED"  // failed for good; Error says why
)

// PieceKey names a piece: its project, its kind ("transcribe", "render")
// and its place.
type PieceKey struct {
	ProjectID string
	Kind      string
	Index     int
}

// name names the piece in messages. Not String: Piece embeds PieceKey, and
// a promoted String would make fmt print a whole piece as its key.
func (k PieceKey) name() string { return fmt.Sprintf("%s/%s/%d", k.ProjectID, k.Kind, k.Index) }

// Piece is one piece of a project's run.
type Piece struct {
	PieceKey
	Run        int64      // the project's run token the piece was planned for
	Spec       []byte     // the piece's input (JSON), opaque to the store
	SpecHash   string     // hex SHA-256 of Spec, computed by the store
	State      PieceState // where the piece is
	Attempt    int64      // raised by every claim; fences the claim's writes
	LeaseUntil time.Time  // RUNNING: when the claim ends unless renewed
	Result     []byte     // DONE: the piece's output (JSON)
	Error      string     // FAILED: why
	Failures   int64      // failed attempts so far
	UpdatedAt  time.Time  // s.Now() of the last write
}

const pieceColumns = `project_id, kind, idx, run_token, spec, spec_hash, state, attempt, lease_until, result, error, failures, updated_at`

func pieceValues(p *Piece) []any {
	spec := p.Spec
	if spec == nil {
		spec = []byte{} // the column is NOT NULL; a nil slice binds as NULL
	}
	return []any{p.ProjectID, p.Kind, p.Index, p.Run, spec, p.SpecHash, string(p.State), p.Attempt,
		nullTime(p.LeaseUntil), p.Result, p.Error, p.Failures, timeText(p.UpdatedAt)}
}

func scanPiece(row scanner) (Piece, error) {
	var p Piece
	var state string
	err := row.Scan(&p.ProjectID, &p.Kind, &p.Index, &p.Run, &p.Spec, &p.SpecHash, &state, &p.Attempt,
		timeCol{&p.LeaseUntil}, &p.Result, &p.Error, &p.Failures, timeCol{&p.UpdatedAt})
	p.State = PieceState(state)
	return p, err
}

// specHash is the hex SHA-256 of a piece's spec: a re-plan compares it to
// tell a finished piece whose input is unchanged from one to redo.
func specHash(spec []byte) string {
	sum := sha256.Sum256(spec)
	return hex.EncodeToString(sum[:])
}

// PlanPieces makes specs (index = position) the pieces of kind of project
// projectID for its run (a token), in one transaction that first checks
// the project carries run in a processing stage (apitypes Stage.Processing),
// else returns ErrStaleRun and changes nothing.
//
// A piece already there under the same key keeps its result when it is
// DONE and its SpecHash equals the new spec's, so a run that restarts
// redoes only what changed or was not finished; its Run becomes run. Every
// other piece there is reset: PENDING, the new spec, Failures 0, Result and
// Error cleared, LeaseUntil zero, Attempt kept, so a write of an earlier
// claim stays refused. Pieces of kind with Index >= len(specs) are deleted.
// enqueue, when not nil, is called inside the same transaction for every
// piece left PENDING, to insert its job: a piece and its job commit
// together. Returns the pieces in index order.
func (s *Store) PlanPieces(ctx context.Context, projectID string, run int64, kind string, specs [][]byte,
	enqueue func(Piece) TxHook) ([]Piece, error) {
	now := stamp(s.Now())
	var planned []Piece
	err := s.tx(ctx, func(tx *sql.Tx) error {
		planned = make([]Piece, 0, len(specs)) // tx may run fn again
		if err := s.lockRun(ctx, tx, projectID, run); err != nil {
			return err
		}
		rows, err := queryAll(ctx, tx, scanPiece, `SELECT `+pieceColumns+` FROM pieces
			WHERE project_id = ? AND kind = ?`+s.forUpdate(), projectID, kind)
		if err != nil {
			return fmt.Errorf("read the pieces: %w", err)
		}
		earlier := make(map[int]Piece, len(rows))
		for _, p := range rows {
			earlier[p.Index] = p
		}
		for i, spec := range specs {
			old, had := earlier[i]
			p := planPiece(PieceKey{projectID, kind, i}, run, spec, now, old, had)
			vals := pieceValues(&p)
			if _, err := tx.ExecContext(ctx, `INSERT INTO pieces(`+pieceColumns+`) VALUES (`+placeholders(len(vals))+`)
				ON CONFLICT (project_id, kind, idx) DO UPDATE SET run_token = excluded.run_token, spec = excluded.spec,
					spec_hash = excluded.spec_hash, state = excluded.state, attempt = excluded.attempt,
					lease_until = excluded.lease_until, result = excluded.result, error = excluded.error,
					failures = excluded.failures, updated_at = excluded.updated_at`, vals...); err != nil {
				return fmt.Errorf("write piece %s: %w", p.name(), err)
			}
			planned = append(planned, p)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM pieces WHERE project_id = ? AND kind = ? AND idx >= ?`,
			projectID, kind, len(specs)); err != nil {
			return fmt.Errorf("delete the pieces past %d: %w", len(specs), err)
		}
		return enqueuePending(ctx, tx, planned, enqueue)
	})
	if err != nil {
		return nil, fmt.Errorf("plan the %s pieces of project %s: %w", kind, projectID, err)
	}
	return planned, nil
}

// planPiece is the piece key becomes for run with spec, given the piece
// there before (if any): an unchanged finished piece is kept, any other is
// reset with its Attempt kept.
func planPiece(key PieceKey, run int64, spec []byte, now time.Time, earlier Piece, had bool) Piece {
	hash := specHash(spec)
	if had && earlier.State == PieceDone && earlier.SpecHash == hash {
		earlier.Run, earlier.Spec, earlier.UpdatedAt = run, spec, now
		return earlier
	}
	return Piece{PieceKey: key, Run: run, Spec: spec, SpecHash: hash, State: PiecePending, Attempt: earlier.Attempt, UpdatedAt: now}
}

// enqueuePending runs enqueue's hook for each PENDING piece of planned, in
// the plan's transaction.
func enqueuePending(ctx context.Context, tx *sql.Tx, planned []Piece, enqueue func(Piece) TxHook) error {
	if enqueue == nil {
		return nil
	}
	for _, p := range planned {
		if p.State != PiecePending {
			continue
		}
		if err := enqueue(p).run(ctx, tx); err != nil {
			return fmt.Errorf("enqueue piece %s: %w", p.name(), err)
		}
	}
	return nil
}

// lockRun locks project projectID's row until tx ends and checks it
// carries run in a processing stage: ErrStaleRun when not (or when the
// project is gone), so a run taken over plans nothing.
func (s *Store) lockRun(ctx context.Context, tx *sql.Tx, projectID string, run int64) error {
	var have int64
	var stage string
	err := tx.QueryRowContext(ctx, `SELECT run_token, stage FROM projects WHERE id = ?`+s.forUpdate(), projectID).Scan(&have, &stage)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("project %s is gone: %w", projectID, ErrStaleRun)
	case err != nil:
		return fmt.Errorf("read run of project %s: %w", projectID, err)
	case have != run || !apitypes.Stage(stage).Processing():
		return ErrStaleRun
	}
	return nil
}

// ClaimPiece takes piece key for a worker of run until `until`: only a
// piece of run that is PENDING, or RUNNING with LeaseUntil before now (its
// worker died), of a project that still carries run in a processing stage.
// It sets RUNNING, Attempt+1, LeaseUntil = until, and returns the piece
// (with its Spec) and true; false (no error) when the piece is not
// claimable or not there. now and until come from the caller (the pipeline
// takes them from PostgreSQL's clock on PostgreSQL, as processes on
// several machines may disagree by more than a lease), never from s.Now().
//
// One UPDATE decides: of two workers claiming at once, the second finds
// the piece RUNNING under a lease that has not passed, and gets false.
func (s *Store) ClaimPiece(ctx context.Context, key PieceKey, run int64, now, until time.Time) (Piece, bool, error) {
	processing := apitypes.StagesWhere(apitypes.Stage.Processing)
	var p Piece
	claimed := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		p, err = scanPiece(tx.QueryRowContext(ctx, `UPDATE pieces SET state = ?, attempt = attempt + 1, lease_until = ?, updated_at = ?
			WHERE project_id = ? AND kind = ? AND idx = ? AND run_token = ?
				AND (state = ? OR (state = ? AND lease_until < ?))
				AND EXISTS (SELECT 1 FROM projects WHERE id = ? AND run_token = ? AND stage IN (`+placeholders(len(processing))+`))
			RETURNING `+pieceColumns,
			append([]any{string(PieceRunning), Timestamp(until), timeText(stamp(s.Now())),
				key.ProjectID, key.Kind, key.Index, run,
				string(PiecePending), string(PieceRunning), Timestamp(now),
				key.ProjectID, run}, anySlice(processing)...)...))
		claimed = err == nil
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	if err != nil {
		return Piece{}, false, fmt.Errorf("claim piece %s: %w", key.name(), err)
	}
	if !claimed {
		return Piece{}, false, nil
	}
	return p, true, nil
}

// heldBy is the WHERE clause of a write of claim attempt: the piece is
// still RUNNING under that attempt. Its arguments follow the statement's
// own (pieceHeld).
const heldBy = ` WHERE project_id = ? AND kind = ? AND idx = ? AND state = ? AND attempt = ?`

// pieceHeld are heldBy's arguments.
func pieceHeld(key PieceKey, attempt int64) []any {
	return []any{key.ProjectID, key.Kind, key.Index, string(PieceRunning), attempt}
}

// RenewPiece moves the lease of claim attempt to until; false when that
// claim no longer holds the piece (not RUNNING, or another attempt): its
// worker stops, as another may have the piece.
func (s *Store) RenewPiece(ctx context.Context, key PieceKey, attempt int64, until time.Time) (bool, error) {
	err := s.execThen(ctx, nil, ErrStaleRun, `UPDATE pieces SET lease_until = ?, updated_at = ?`+heldBy,
		append([]any{Timestamp(until), timeText(stamp(s.Now()))}, pieceHeld(key, attempt)...)...)
	switch {
	case errors.Is(err, ErrStaleRun):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("renew piece %s: %w", key.name(), err)
	}
	return true, nil
}

// FinishPiece stores the result of claim attempt: DONE, Result, LeaseUntil
// zero. ErrStaleRun when the claim no longer holds the piece (not RUNNING
// with that Attempt), so the result of a claim taken over is dropped.
func (s *Store) FinishPiece(ctx context.Context, key PieceKey, attempt int64, result []byte) error {
	err := s.execThen(ctx, nil, ErrStaleRun, `UPDATE pieces SET state = ?, result = ?, error = '', lease_until = NULL, updated_at = ?`+heldBy,
		append([]any{string(PieceDone), result, timeText(stamp(s.Now()))}, pieceHeld(key, attempt)...)...)
	if err != nil {
		return fmt.Errorf("finish piece %s: %w", key.name(), err)
	}
	return nil
}

// FailPiece records a failed attempt of claim attempt: Failures+1; when
// final, or Failures reaches maxFailures, the piece is FAILED with msg;
// else PENDING again, for any worker to retry. Returns the new state.
// ErrStaleRun when the claim no longer holds it. A maxFailures below 1
// makes every failure final.
func (s *Store) FailPiece(ctx context.Context, key PieceKey, attempt int64, msg string, final bool, maxFailures int) (PieceState, error) {
	var state string
	err := s.tx(ctx, func(tx *sql.Tx) error {
		// SET's right-hand sides read the row as it was: failures + 1 is
		// the new count, in the state's test as in the column.
		err := tx.QueryRowContext(ctx, `UPDATE pieces SET failures = failures + 1,
				state = CASE WHEN ? = 1 OR failures + 1 >= ? THEN ? ELSE ? END,
				error = CASE WHEN ? = 1 OR failures + 1 >= ? THEN ? ELSE '' END,
				lease_until = NULL, updated_at = ?`+heldBy+` RETURNING state`,
			append([]any{boolInt(final), maxFailures, string(PieceFailed), string(PiecePending),
				boolInt(final), maxFailures, msg, timeText(stamp(s.Now()))}, pieceHeld(key, attempt)...)...).Scan(&state)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrStaleRun
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("fail piece %s: %w", key.name(), err)
	}
	return PieceState(state), nil
}

// ReleasePiece gives back claim attempt without a failure (its process
// stops): PENDING, LeaseUntil zero, for another worker to claim at once
// instead of after the lease. ErrStaleRun as FinishPiece.
func (s *Store) ReleasePiece(ctx context.Context, key PieceKey, attempt int64) error {
	err := s.execThen(ctx, nil, ErrStaleRun, `UPDATE pieces SET state = ?, lease_until = NULL, updated_at = ?`+heldBy,
		append([]any{string(PiecePending), timeText(stamp(s.Now()))}, pieceHeld(key, attempt)...)...)
	if err != nil {
		return fmt.Errorf("release piece %s: %w", key.name(), err)
	}
	return nil
}

// ProjectPieces lists the pieces of kind of a project in index order ("" =
// every kind, by kind then index): what the stage machine reads to tell
// whether every piece is done, and to merge their results in order.
func (s *Store) ProjectPieces(ctx context.Context, projectID, kind string) ([]Piece, error) {
	return s.projectPieces(ctx, pieceColumns, projectID, kind)
}

// pieceStateColumns are pieceColumns with NULL for the spec and the result.
const pieceStateColumns = `project_id, kind, idx, run_token, NULL, spec_hash, state, attempt, lease_until, NULL, error, failures, updated_at`

// ProjectPieceStates is ProjectPieces without each piece's Spec and Result
// (nil): what a run waiting on its pieces reads on every look, a few bytes a
// piece where a render's spec and result are kilobytes.
func (s *Store) ProjectPieceStates(ctx context.Context, projectID, kind string) ([]Piece, error) {
	return s.projectPieces(ctx, pieceStateColumns, projectID, kind)
}

func (s *Store) projectPieces(ctx context.Context, columns, projectID, kind string) ([]Piece, error) {
	query, args := `SELECT `+columns+` FROM pieces WHERE project_id = ?`, []any{projectID}
	if kind != "" {
		query, args = query+` AND kind = ?`, append(args, kind)
	}
	pieces, err := queryAll(ctx, s.db, scanPiece, query+` ORDER BY kind, idx`, args...)
	if err != nil {
		return nil, fmt.Errorf("pieces of project %s: %w", projectID, err)
	}
	return pieces, nil
}

// DeletePieces removes every piece of a project (its run completed or
// stalled for good): their results are in the project's own rows by then.
func (s *Store) DeletePieces(ctx context.Context, projectID string) error {
	if err := s.execThen(ctx, nil, nil, `DELETE FROM pieces WHERE project_id = ?`, projectID); err != nil {
		return fmt.Errorf("delete the pieces of project %s: %w", projectID, err)
	}
	return nil
}

// PieceCount is how many pieces of a kind are in a state.
type PieceCount struct {
	Kind  string
	State PieceState
	N     int64
}

// PieceCounts counts every piece by kind and state (the metrics' gauge),
// ordered by kind then state; a kind and state without a piece is absent.
func (s *Store) PieceCounts(ctx context.Context) ([]PieceCount, error) {
	counts, err := queryAll(ctx, s.db, func(row scanner) (PieceCount, error) {
		var c PieceCount
		var state string
		err := row.Scan(&c.Kind, &state, &c.N)
		c.State = PieceState(state)
		return c, err
	}, `SELECT kind, state, COUNT(*) FROM pieces GROUP BY kind, state ORDER BY kind, state`)
	if err != nil {
		return nil, fmt.Errorf("count the pieces: %w", err)
	}
	return counts, nil
}
