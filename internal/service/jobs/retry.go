package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/clipperhq/terraform-provider-clipper/internal/backoff"
)

// curve is River's retry policy: the one backoff curve, jittered so jobs
// that failed together do not retry together.
type curve struct{ backoff.Retry }

func (c curve) NextRetry(job *rivertype.JobRow) time.Time {
	return time.Now().Add(backoff.Jittered(job.Attempt, c.Base, c.Max))
}

// errorLog logs a failed attempt with its job; River retries it.
type errorLog struct{ log *slog.Logger }

func (e errorLog) HandleError(ctx context.Context, job *rivertype.JobRow, err error) *river.ErrorHandlerResult {
	e.log.WarnContext(ctx, "job attempt failed", "kind", job.Kind, "job", job.ID, "queue", job.Queue,
		"attempt", job.Attempt, "max_attempts", job.MaxAttempts, "err", err)
	return nil
}

func (e errorLog) HandlePanic(ctx context.Context, job *rivertype.JobRow, panicVal any, trace string) *river.ErrorHandlerResult {
	e.log.ErrorContext(ctx, "job attempt panicked", "kind", job.Kind, "job", job.ID, "queue", job.Queue,
		"attempt", job.Attempt, "panic", panicVal, "trace", trace)
	return nil
}
