package store

import (
	"context"
	"fmt"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
)

// Stats is the state of the whole server that its metrics report, summed
// over every organization.
type Stats struct {
	// ProjectsByStage counts the projects in each stage that has any.
	ProjectsByStage map[apitypes.Stage]int64
	// CreditsUsed is the credits used in the current credit month (refunds
	// lower it).
	CreditsUsed int64
	// UploadBytes is what uploads hold that no project counts; ProjectBytes
	// is what projects keep (their sources and renders); PostBytes is what
	// published copies of clips hold apart from the clips. Together they
	// are StorageUsed of every org.
	UploadBytes, ProjectBytes, PostBytes int64
	// Pieces counts the pieces of runs (pieces.go) by kind and state.
	Pieces []PieceCount
}

// statsTotalsSQL reads the sums of Stats in one statement: the credits of
// month ?1, then the bytes counted as storageUsedSQL counts them.
const statsTotalsSQL = `SELECT
	(SELECT COALESCE(SUM(used), 0) FROM credits WHERE month = ?1),
	(SELECT COALESCE(SUM(u.received), 0) FROM uploads u WHERE ` + uploadNotInProjectSQL + `),
	(SELECT COALESCE(SUM(storage_size), 0) FROM projects),
	(SELECT COALESCE(SUM(storage_size), 0) FROM posts)`

// Stats reads the server's Stats: two short reads, for a metrics scrape.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	st := Stats{ProjectsByStage: map[apitypes.Stage]int64{}}
	type stageCount struct {
		stage apitypes.Stage
		n     int64
	}
	counts, err := queryAll(ctx, s.db, func(row scanner) (c stageCount, err error) {
		err = row.Scan(&c.stage, &c.n)
		return c, err
	}, `SELECT stage, COUNT(*) FROM projects GROUP BY stage`)
	if err != nil {
		return Stats{}, fmt.Errorf("count projects by stage: %w", err)
	}
	for _, c := range counts {
		st.ProjectsByStage[c.stage] = c.n
	}
	err = s.db.QueryRowContext(ctx, statsTotalsSQL, quota.MonthOf(s.Now())).Scan(&st.CreditsUsed, &st.UploadBytes, &st.ProjectBytes, &st.PostBytes)
	if err != nil {
		return Stats{}, fmt.Errorf("sum credits and storage: %w", err)
	}
	if st.Pieces, err = s.PieceCounts(ctx); err != nil {
		return Stats{}, err
	}
	return st, nil
}
