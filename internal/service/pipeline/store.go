package pipeline

import (
	"context"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// Store is what a Runner reads and writes of the store; *store.Store is
// one. Every project write goes through a mutation, so the store can keep
// its rules (run tokens, credits) however it is backed.
type Store interface {
	// Projects: a run reads its project and changes it only through a
	// mutation, which also stores the deliveries a conclusion makes.
	GetProject(ctx context.Context, id string) (*store.Project, error)
	ProjectsInStages(ctx context.Context, stages ...apitypes.Stage) ([]*store.Project, error)
	MutateProject(ctx context.Context, id string, fn func(*store.Project) error) (*store.Project, error)
	MutateProjectWithEffects(ctx context.Context, id string, fn func(*store.Project) (store.Effects, error)) (*store.Project, []store.Delivery, error)
	// ChargeProjectCredits charges a probed project within the monthly cap.
	ChargeProjectCredits(ctx context.Context, id string, total, limit int64) (*store.Project, error)

	// Leases and retries: the heartbeat, the watchdog and the backoff loop.
	RenewLease(ctx context.Context, id string, run int64, until time.Time) (bool, error)
	ExpiredLeases(ctx context.Context, now time.Time) ([]string, error)
	DueRetries(ctx context.Context) ([]string, error)
	// DatabaseTime is PostgreSQL's clock, which leases are taken by (the
	// machines' own clocks may disagree); Now is the store's clock, which
	// tests move.
	DatabaseTime(ctx context.Context) (t time.Time, ok bool, err error)
	Now() time.Time

	// Inputs of a run: the uploads it imports, the organization's b-roll
	// and brand template.
	GetUpload(ctx context.Context, id string) (*store.Upload, error)
	BrollItems(ctx context.Context, orgID string) ([]*store.BrollItem, error)
	BrandTemplate(ctx context.Context, orgID, id string) (*apitypes.BrandTemplate, error)

	// Results of a run: its transcript, its clips, the sums of its renders.
	ReplaceTranscript(ctx context.Context, projectID string, words []store.TranscriptWord) error
	ReplaceRunClips(ctx context.Context, projectID, orgID string, run int64, clips []store.Clip) error
	RecordMediaSum(ctx context.Context, key string, sum store.MediaSum) error

	// Pieces of a run (pieces.go): planned by the run, claimed by any
	// worker with a lease, each claim's writes fenced by its attempt.
	PlanPieces(ctx context.Context, projectID string, run int64, kind string, specs [][]byte, enqueue func(store.Piece) store.TxHook) ([]store.Piece, error)
	ClaimPiece(ctx context.Context, key store.PieceKey, run int64, now, until time.Time) (store.Piece, bool, error)
	RenewPiece(ctx context.Context, key store.PieceKey, attempt int64, until time.Time) (bool, error)
	FinishPiece(ctx context.Context, key store.PieceKey, attempt int64, result []byte) error
	FailPiece(ctx context.Context, key store.PieceKey, attempt int64, msg string, final bool, maxFailures int) (store.PieceState, error)
	ReleasePiece(ctx context.Context, key store.PieceKey, attempt int64) error
	ProjectPieces(ctx context.Context, projectID, kind string) ([]store.Piece, error)
	ProjectPieceStates(ctx context.Context, projectID, kind string) ([]store.Piece, error)
	DeletePieces(ctx context.Context, projectID string) error
}
