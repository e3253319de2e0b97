package pipeline

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/backoff"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// A run does its heavy parts as pieces: the chunks of a long source's
// transcription and the render of each clip. The run plans them in the
// store, each with a job on the pipeline queue in the same transaction, so
// any worker with a free slot, of this process or another, claims one. The
// run claims them too, in order, so it never sits idle waiting for a slot
// and finishes alone when no other worker is free (the single box). A claim
// holds its piece with a lease its heartbeat renews, and every write of the
// claim is fenced by its attempt: a worker that dies mid-piece loses the
// piece when the lease ends, and the next claim redoes that piece only. The
// run moves on when every piece is done; a piece that fails for good fails
// the run, once, with its reason. The project's stage reads as before
// (CURATE while chunks are recognised, RENDER while any clip renders).

// The kinds of pieces (the metrics' kind label).
const (
	PieceTranscribe = "transcribe"
	PieceRender     = "render"
)

// pieceWork does one claim of a piece and returns its result (JSON).
type pieceWork func(r *Runner, ctx context.Context, c *pieceClaim) ([]byte, error)

// pieceKinds is how each kind of piece is done.
var pieceKinds = map[string]pieceWork{
	PieceTranscribe: (*Runner).transcribePiece,
	PieceRender:     (*Runner).renderPiece,
}

// pieceClaim is one claim of a piece, as its worker does it.
type pieceClaim struct {
	piece  store.Piece
	source string // a local file of the project's source
	tmp    string // the claim's own temporary directory
}

// pieceMaxFailures is how many failed attempts of one piece the run takes
// before the piece fails it (a stall the project's retries then cover). A
// piece FAILED with fewer failures was failed for good by its error
// (final): the run's stall is permanent too.
const pieceMaxFailures = 3

// pieceTimeout bounds one piece's job, like runTimeout a run's: the piece's
// own lease, not River's, hands a dead worker's piece to another claim.
const pieceTimeout = 6 * time.Hour

// pieceWait is how long a run waiting for pieces other workers hold waits
// between two looks at them.
const pieceWait = 250 * time.Millisecond

// pieceArgs is the job of one piece: the project, the piece's kind and
// place, and the run token it was planned for. A piece of a run the project
// no longer carries is not claimed.
type pieceArgs struct {
	ProjectID string `json:"project_id" river:"unique"`
	Piece     string `json:"piece" river:"unique"`
	Index     int    `json:"index" river:"unique"`
	Run       int64  `json:"run" river:"unique"`
}

func (pieceArgs) Kind() string { return "project_piece" }

// enqueuePiece is PlanPieces' hook: the job of a pending piece, inserted
// in the transaction that plans it.
func (r *Runner) enqueuePiece(p store.Piece) store.TxHook {
	return func(ctx context.Context, tx *sql.Tx) error {
		return r.cfg.Jobs.InsertTx(ctx, tx, pieceArgs{ProjectID: p.ProjectID, Piece: p.Kind, Index: p.Index, Run: p.Run})
	}
}

// workPiece is a piece's job: a claim of the piece within its
// organization's share of this process's workers (pieces count like runs),
// unless the run it was planned for is over. A failed attempt that may be
// retried fails the job, so River tries it again (unless the run claims it
// first).
func (r *Runner) workPiece(ctx context.Context, job *jobs.Job[pieceArgs]) error {
	a := job.Args
	p, err := r.cfg.Store.GetProject(ctx, a.ProjectID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pipeline: look up project %s: %w", a.ProjectID, err)
	}
	if p.RunToken != a.Run || !p.Stage.Processing() {
		return nil
	}
	release, ok := r.holdShare(jobs.QueuePipeline, p, false)
	if !ok {
		return jobs.Snooze(orgSnoozeFor())
	}
	defer release()
	key := store.PieceKey{ProjectID: a.ProjectID, Kind: a.Piece, Index: a.Index}
	_, err = r.doPiece(ctx, key, a.Run, func(ctx context.Context) (string, error) { return r.sources.get(ctx, r, p) })
	if errors.Is(err, errPieceGivenBack) {
		return nil // the run, or another process, claims it again
	}
	return err
}

// errPieceGivenBack is doPiece's answer for a claim cut short by a stop:
// the piece is pending again, and the run that waits for it hands the
// project back as a run does whose stage a stop cut short.
var errPieceGivenBack = errors.New("piece given back: clipperd stops")

// doPiece claims piece key of run and does it; claimed is false when the
// piece was not claimable (done, held by a live claim, or of a run that is
// over). source gives a local file of the project's source. The error is
// that of an attempt that failed and may be tried again, or
// errPieceGivenBack.
func (r *Runner) doPiece(ctx context.Context, key store.PieceKey, run int64, source func(context.Context) (string, error)) (claimed bool, err error) {
	now, err := r.leases.now(ctx)
	if err != nil {
		return false, err
	}
	piece, ok, err := r.cfg.Store.ClaimPiece(ctx, key, run, now, now.Add(r.cfg.Lease))
	if err != nil || !ok {
		return false, err
	}
	r.log.Info("piece started", "project", key.ProjectID, "piece", key.Kind, "index", key.Index, "attempt", piece.Attempt)
	ctx, cut := context.WithCancelCause(ctx)
	var beat sync.WaitGroup
	defer beat.Wait()
	defer cut(nil)
	beat.Add(1)
	go func() { defer beat.Done(); r.pieceHeartbeat(ctx, cut, key, piece.Attempt) }()

	result, err := r.attemptPiece(ctx, piece, source)
	return true, r.settlePiece(ctx, piece, result, err)
}

// attemptPiece does one claim of piece in a temporary directory of its own.
func (r *Runner) attemptPiece(ctx context.Context, piece store.Piece, source func(context.Context) (string, error)) ([]byte, error) {
	work, ok := pieceKinds[piece.Kind]
	if !ok {
		return nil, permanentf("unknown piece kind %q (a newer clipperd planned it)", piece.Kind)
	}
	name := fmt.Sprintf("%s.run%d.%s%d.a%d", piece.ProjectID, piece.Run, piece.Kind, piece.Index, piece.Attempt)
	tmp, err := r.cfg.Scratch.Make(name)
	if err != nil {
		return nil, fmt.Errorf("temporary directory: %w", err)
	}
	defer func() {
		if err := r.cfg.Scratch.Remove(name); err != nil {
			r.log.Warn("remove a piece's temporary files", "project", piece.ProjectID, "err", err)
		}
	}()
	src, err := source(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the source: %w", err)
	}
	return work(r, ctx, &pieceClaim{piece: piece, source: src, tmp: tmp})
}

// settlePiece writes the outcome of a claim: its result; nothing when the
// claim was taken over (its lease ended); the piece given back when the
// process stops (a failure that may be the stop's included, as a run's);
// else a failed attempt, final when the error is permanent.
func (r *Runner) settlePiece(ctx context.Context, piece store.Piece, result []byte, err error) error {
	key, write := piece.PieceKey, context.WithoutCancel(ctx)
	log := r.log.With("project", key.ProjectID, "piece", key.Kind, "index", key.Index, "attempt", piece.Attempt)
	switch {
	case err == nil:
		if err := r.cfg.Store.FinishPiece(write, key, piece.Attempt, result); err != nil {
			if errors.Is(err, store.ErrStaleRun) {
				log.Warn("piece taken over; its result is not written")
				return nil
			}
			return fmt.Errorf("store the result of %s piece %d: %w", key.Kind, key.Index, err)
		}
		log.Debug("piece done")
		return nil
	case errors.Is(context.Cause(ctx), errLeaseLost) || errors.Is(err, errLeaseLost):
		log.Warn("piece taken over; it stops without writing")
		return nil
	case ctx.Err() != nil || (r.stopping.Load() && !isPermanent(err) && !missingTool(err)):
		if err := r.cfg.Store.ReleasePiece(write, key, piece.Attempt); err != nil && !errors.Is(err, store.ErrStaleRun) {
			log.Error("give back a piece cut short", "err", err)
		}
		log.Info("piece cut short by a stop; given back", "cause", err)
		return fmt.Errorf("%s piece %d: %w", key.Kind, key.Index+1, errPieceGivenBack)
	}
	state, ferr := r.cfg.Store.FailPiece(write, key, piece.Attempt, err.Error(), isPermanent(err), pieceMaxFailures)
	if ferr != nil && !errors.Is(ferr, store.ErrStaleRun) {
		return fmt.Errorf("record the failure of %s piece %d (%v): %w", key.Kind, key.Index, err, ferr)
	}
	log.Warn("piece failed", "state", state, "err", err)
	if state == store.PiecePending {
		return err // tried again
	}
	return nil
}

// pieceHeartbeat renews a claim's lease every Lease/3 and cuts the claim
// with errLeaseLost once another claim holds the piece.
func (r *Runner) pieceHeartbeat(ctx context.Context, cut context.CancelCauseFunc, key store.PieceKey, attempt int64) {
	r.keepLease(ctx, cut, func(until time.Time) (bool, error) { return r.cfg.Store.RenewPiece(ctx, key, attempt, until) },
		"renew a piece's lease", "project", key.ProjectID, "piece", key.Kind, "index", key.Index)
}

// stillHeld renews c's lease, and fails with errLeaseLost when another
// claim holds the piece now: a piece checks it before writing to the
// media, which its fenced result does not cover.
func (r *Runner) stillHeld(ctx context.Context, c *pieceClaim) error {
	now, err := r.leases.now(ctx)
	if err != nil {
		return err
	}
	held, err := r.cfg.Store.RenewPiece(ctx, c.piece.PieceKey, c.piece.Attempt, now.Add(r.cfg.Lease))
	switch {
	case err != nil:
		return fmt.Errorf("renew the piece's lease: %w", err)
	case !held:
		return errLeaseLost
	}
	return nil
}

// planPieces plans specs as the pieces of kind of j's run, each pending one
// with its job. A piece an earlier run of the project finished with the
// same spec keeps its result.
func (r *Runner) planPieces(ctx context.Context, j *job, kind string, specs [][]byte) error {
	return r.persist(ctx, "plan the "+kind+" pieces", j.p.ID, func() error {
		_, err := r.cfg.Store.PlanPieces(ctx, j.p.ID, j.run, kind, specs, r.enqueuePiece)
		if errors.Is(err, store.ErrStaleRun) {
			return errLostRun
		}
		return err
	})
}

// gatherPieces works j's pieces of kind beside the other workers until all
// are done, and returns their results in order. It claims the pending ones
// and those whose claim's lease ended (their worker died) in order, and
// between two claims looks at what the others did; done is called once per
// piece found done, with its index, in the order they are found.
func (r *Runner) gatherPieces(ctx context.Context, j *job, kind string, planned int, done func(i int)) ([][]byte, error) {
	seen := map[int]bool{}
	source := func(context.Context) (string, error) { return j.source, nil }
	// Each look reads the pieces' states only; their results once all are done.
	read := func(pieces func(ctx context.Context, projectID, kind string) ([]store.Piece, error)) ([]store.Piece, error) {
		ps, err := pieces(ctx, j.p.ID, kind)
		if err != nil {
			return nil, fmt.Errorf("read the %s pieces: %w", kind, err)
		}
		if len(ps) != planned || slices.ContainsFunc(ps, func(p store.Piece) bool { return p.Run != j.run }) {
			return nil, errLostRun // another run planned them, or finished the project
		}
		return ps, nil
	}
	for {
		pieces, err := read(r.cfg.Store.ProjectPieceStates)
		if err != nil {
			return nil, err
		}
		finished, err := piecesOutcome(pieces, kind, seen, done)
		if err != nil {
			return nil, err
		}
		if finished {
			if pieces, err = read(r.cfg.Store.ProjectPieces); err != nil {
				return nil, err
			}
			// A piece done stays done within its run (its writes are fenced),
			// and a new run's plan fails read: every piece is still done here.
			results := make([][]byte, len(pieces))
			for i, p := range pieces {
				results[i] = p.Result
			}
			return results, nil
		}
		now, err := r.leases.now(ctx)
		if err != nil {
			return nil, err
		}
		claimed := false
		for _, p := range pieces {
			if p.State == store.PiecePending || (p.State == store.PieceRunning && p.LeaseUntil.Before(now)) {
				// An attempt's failure is recorded with the piece: the next
				// look finds it pending again, or failed.
				var err error
				claimed, err = r.doPiece(ctx, p.PieceKey, j.run, source)
				if errors.Is(err, errPieceGivenBack) {
					return nil, err
				}
				if claimed {
					break
				}
			}
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if !claimed {
			// Not r.sleep: that is the write retries' wait, which tests
			// replace (one with no wait at all, which would spin here).
			if err := backoff.Sleep(ctx, pieceWait); err != nil {
				return nil, context.Cause(ctx)
			}
		}
	}
}

// piecesOutcome reads the state of a run's pieces: whether all are done,
// or the error of one that failed. done is called for each piece newly
// found done (seen).
func piecesOutcome(pieces []store.Piece, kind string, seen map[int]bool, done func(i int)) (bool, error) {
	finished := true
	for i, p := range pieces {
		switch p.State {
		case store.PieceDone:
			if !seen[i] {
				seen[i] = true
				if done != nil {
					done(i)
				}
			}
		case store.PieceFailed:
			if p.Failures < pieceMaxFailures {
				return false, permanentf("%s", p.Error)
			}
			return false, fmt.Errorf("%s (%d attempts of %s piece %d of %d)", p.Error, p.Failures, kind, i+1, len(pieces))
		default:
			finished = false
		}
	}
	return finished, nil
}

// sourceCopies keeps one local copy of each project's source for the
// pieces this process works (a bucket's objects are not files), made by the
// first piece that needs it and removed once the project's run is over.
type sourceCopies struct {
	mu     sync.Mutex
	copies map[sourceRun]*sourceCopy
}

// sourceRun names the source of one run of a project.
type sourceRun struct {
	project string
	run     int64
}

// scratch is the name of the directory its copy is in.
func (s sourceRun) scratch() string { return fmt.Sprintf("%s.run%d.source", s.project, s.run) }

type sourceCopy struct {
	mu   sync.Mutex // held while the copy is made
	path string
}

// get is a local file of p's source, for a piece of its current run.
func (s *sourceCopies) get(ctx context.Context, r *Runner, p *store.Project) (string, error) {
	if _, local := r.cfg.Media.(blob.Local); local {
		return blob.LocalFile(ctx, r.cfg.Media, p.SourceKey, "")
	}
	key := sourceRun{p.ID, p.RunToken}
	s.mu.Lock()
	if s.copies == nil {
		s.copies = map[sourceRun]*sourceCopy{}
	}
	c, ok := s.copies[key]
	if !ok {
		c = &sourceCopy{}
		s.copies[key] = c
	}
	s.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.path != "" {
		return c.path, nil
	}
	dir, err := r.cfg.Scratch.Make(key.scratch())
	if err != nil {
		return "", err
	}
	path, err := blob.LocalFile(ctx, r.cfg.Media, p.SourceKey, dir)
	if err != nil {
		return "", err
	}
	c.path = path
	return path, nil
}

// sweep removes the copies of the sources of runs that are over (the
// Runner's loop calls it).
func (s *sourceCopies) sweep(ctx context.Context, r *Runner) {
	s.mu.Lock()
	keys := make([]sourceRun, 0, len(s.copies))
	for k := range s.copies {
		keys = append(keys, k)
	}
	s.mu.Unlock()
	for _, k := range keys {
		p, err := r.cfg.Store.GetProject(ctx, k.project)
		switch {
		case err == nil && p.RunToken == k.run && p.Stage.Processing():
			continue // the run goes on
		case err != nil && !errors.Is(err, store.ErrNotFound):
			continue // not known now: the next sweep
		}
		s.mu.Lock()
		delete(s.copies, k)
		s.mu.Unlock()
		if err := r.cfg.Scratch.Remove(k.scratch()); err != nil {
			r.log.Warn("remove a copy of a source", "project", k.project, "err", err)
		}
	}
}
