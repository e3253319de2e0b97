package publish

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/repeat"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// ScheduleStore is what the scheduler needs of the store: the due
// schedules, firing one exactly once, and the store's clock.
type ScheduleStore interface {
	Now() time.Time
	DueSchedules(ctx context.Context, limit int) ([]string, error)
	NextScheduleAt(ctx context.Context) (next time.Time, ok bool, err error)
	FireSchedule(ctx context.Context, id string, limits store.PostLimits, enqueue func(*store.Post) store.TxHook) (*store.Post, error)
}

// SchedulerConfig configures a Scheduler.
type SchedulerConfig struct {
	Store ScheduleStore // and its clock, which tests move
	// MonthlyCredits caps the credits a TWITTER post takes when its schedule
	// fires; <= 0: no limit.
	MonthlyCredits int64
	// StorageQuota caps the bytes of an organization, which a post fired to
	// the "dir" destination adds to where Media copies bytes; <= 0: no quota.
	StorageQuota int64
	// Media holds the clips, sized for StorageQuota (ClipCopySize); nil:
	// posts are counted as adding nothing.
	Media  blob.Store
	Logger *slog.Logger // nil = discard
	// MaxWait is the longest the scheduler sleeps between looks at the
	// schedules; it wakes earlier when the next one is due, or on Wake.
	// Default 1 s.
	MaxWait time.Duration
	// Enqueue gives each pending post a fired schedule makes its job (the
	// Worker's), in the transaction that fires the schedule; nil: none.
	Enqueue func(*store.Post) store.TxHook
}

// Scheduler fires publish schedules when their publishAt comes: each into
// one post, made, charged and given its job in the transaction that marks
// the schedule fired. Schedules that came due while no process ran fire on
// its first pass. Every process may run one: the mark is a conditional
// update, so a schedule fires once however many look at it. (A loop rather
// than a job per schedule, timed by River's ScheduledAt: the schedule's
// time is the store's clock, which tests move.)
type Scheduler struct {
	cfg  SchedulerConfig
	log  *slog.Logger
	loop repeat.Loop
}

// NewScheduler checks cfg and fills its defaults.
func NewScheduler(cfg SchedulerConfig) (*Scheduler, error) {
	if cfg.Store == nil {
		return nil, errors.New("publish: the scheduler needs a Store")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = time.Second
	}
	return &Scheduler{cfg: cfg, log: cfg.Logger}, nil
}

// Start runs the scheduler until Stop or ctx ends.
func (s *Scheduler) Start(ctx context.Context) {
	s.loop.OnFailure = func(err error, failures int, retryIn time.Duration) {
		s.log.Error("fire publish schedules", "err", err, "failures", failures, "retryIn", retryIn)
	}
	s.loop.Start(ctx, s.fireDue)
}

// Wake asks the scheduler to look at the schedules now (one was made).
func (s *Scheduler) Wake() { s.loop.Wake() }

// Stop cancels the scheduler and waits for it to return.
func (s *Scheduler) Stop() { s.loop.Stop() }

// limits are what a fired post is held to.
func (s *Scheduler) limits() store.PostLimits {
	l := store.PostLimits{MonthlyCap: s.cfg.MonthlyCredits, StorageQuota: s.cfg.StorageQuota}
	if s.cfg.Media != nil {
		l.CopySize = ClipCopySize(s.cfg.Media)
	}
	return l
}

// fireDue fires every due schedule and sleeps until the next is due, at
// most MaxWait; after a failure (a full disk) the loop backs off instead.
func (s *Scheduler) fireDue(ctx context.Context) (time.Duration, error) {
	err := repeat.Drain(ctx, 32, s.cfg.Store.DueSchedules, func(ctx context.Context, ids []string) error {
		for _, id := range ids {
			p, err := s.cfg.Store.FireSchedule(ctx, id, s.limits(), s.cfg.Enqueue)
			if err != nil {
				return err
			}
			if p != nil {
				s.log.Info("publish schedule fired", "schedule", id, "post", p.ID, "status", p.Status, "error", p.LastError)
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	next, ok, err := s.cfg.Store.NextScheduleAt(ctx)
	if err != nil || !ok {
		return s.cfg.MaxWait, err
	}
	return min(next.Sub(s.cfg.Store.Now()), s.cfg.MaxWait), nil
}
