package server

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/censorjobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/copyjobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/janitor"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/outbound"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/pipeline"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/publish"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

// worker is a part of the process that works in the background: the
// workers start in order (startWorkers) and stop in reverse (stopWorkers).
type worker struct {
	name  string
	start func(ctx context.Context) error
	stop  func(ctx context.Context) error
	// first stops it before the API closes, ahead of the others.
	first bool
}

// jobKinds are the kinds of job, each with rows of its own (jobs.Rows):
// every process registers them, and the API and the pipeline insert their
// jobs in the transactions of their rows.
type jobKinds struct {
	runner  *pipeline.Runner
	disp    *outbound.Dispatcher
	copies  *copyjobs.Worker
	censors *censorjobs.Worker
	posts   *publish.Worker
}

// rowKind is a kind of job with rows of its own: at start, before the job
// system, each of its rows that needs a job and has none gets one.
type rowKind interface {
	Adopt(ctx context.Context) error
}

// all are the kinds, adopted in this order at start.
func (k *jobKinds) all() []rowKind {
	return []rowKind{k.runner, k.copies, k.censors, k.disp, k.posts}
}

// newWorkers makes the kinds of job (conclusion deliveries, posts, project
// runs, copy and censor jobs), the publish scheduler and the janitor. Every
// process makes them, an API-only node too: its API inserts their jobs.
func (s *Server) newWorkers(cfg Config, asr transcribe.Transcriber) error {
	var err error
	s.disp, err = outbound.New(outbound.Config{
		Store: s.store, Jobs: s.jobs, DataDir: cfg.DataDir, SMTP: cfg.SMTP, Logger: s.log.With("component", "outbound"),
		AllowPrivateWebhooks: cfg.AllowPrivateWebhooks, OnAttempt: s.metrics.ActionAttempt,
	})
	if err != nil {
		return err
	}
	if err := s.newPublishing(cfg); err != nil {
		return err
	}
	if s.runner, err = s.newRunner(cfg, asr); err != nil {
		return err
	}
	if err := s.newCopyAndCensor(); err != nil {
		return err
	}
	s.janitor, err = janitor.New(janitor.Config{
		Store: s.store, Media: s.media, Uploads: s.uploads, UploadExpiry: cfg.UploadExpiry, Period: cfg.JanitorPeriod,
		Logger: s.log.With("component", "janitor"),
	})
	return err
}

// newPublishing makes the publish worker and the scheduler, which gives the
// posts of fired schedules their jobs.
func (s *Server) newPublishing(cfg Config) error {
	var err error
	s.posts, err = publish.NewWorker(publish.WorkerConfig{
		Store: s.store, Jobs: s.jobs, Media: s.media, Logger: s.log.With("component", "publish"), MediaLinks: s.links,
		AllowPrivateWebhooks: cfg.AllowPrivateWebhooks, OnAttempt: s.metrics.PublishAttempt,
	})
	if err != nil {
		return err
	}
	s.scheduler, err = publish.NewScheduler(publish.SchedulerConfig{
		Store: s.store, MonthlyCredits: int64(cfg.MonthlyCredits), StorageQuota: cfg.StorageQuota, Media: s.media,
		Logger:  s.log.With("component", "schedule"),
		Enqueue: s.posts.Enqueue,
	})
	return err
}

// newRunner makes the pipeline's runner, which sends its conclusions
// through the dispatcher.
func (s *Server) newRunner(cfg Config, asr transcribe.Transcriber) (*pipeline.Runner, error) {
	return pipeline.New(pipeline.Config{
		Store:               s.store,
		Jobs:                s.jobs,
		Lease:               cfg.Lease,
		OrgShare:            cfg.OrgWorkers,
		ImportTimeout:       cfg.ImportTimeout,
		ImportMinRate:       cfg.ImportMinRate,
		EncodePreset:        cfg.EncodePreset,
		Media:               s.media,
		Scratch:             s.scratch,
		PublicURL:           s.url,
		AllowPrivateImports: cfg.AllowPrivateImports,
		MonthlyCredits:      int64(cfg.MonthlyCredits),
		Logger:              s.log.With("component", "pipeline"),
		Deliveries:          s.disp,
		OnStageLeft:         s.metrics.StageLeft,
		OnFirstClip:         s.metrics.FirstClip,
		Transcriber:         asr,
		MediaLinks:          s.links,
	})
}

// newCopyAndCensor makes the copy worker and the censor worker.
func (s *Server) newCopyAndCensor() error {
	var err error
	s.copies, err = copyjobs.New(copyjobs.Config{Store: s.store, Jobs: s.jobs, Logger: s.log.With("component", "copyjobs")})
	if err != nil {
		return err
	}
	// Censor jobs spot the listed words in the audio with pocketsphinx
	// whichever recogniser makes transcripts; without it, the transcript's
	// words only.
	var spotter censorjobs.Spotter
	if transcribe.DefaultKind() == transcribe.KindPocketsphinx {
		spotter = &transcribe.Pocketsphinx{}
	} else {
		s.log.Warn("censor jobs find words in the transcript only: " + transcribe.PocketsphinxTool + " is not on PATH to spot them in the audio")
	}
	s.censors, err = censorjobs.New(censorjobs.Config{Store: s.store, Jobs: s.jobs, Media: s.media, Scratch: s.scratch,
		Logger: s.log.With("component", "censorjobs"), Spotter: spotter})
	return err
}

// workerList is what a process runs in the background, in the order it
// starts. A process that works runs the janitor, the pipeline's loop
// (which first queues again the projects of runs whose lease ended), the
// job system and the publish scheduler. An API-only node runs the janitor
// alone: expired uploads go whichever processes run, and upload files on
// this node's own disk (an earlier release's, or --media in another
// directory) are swept nowhere else.
func (s *Server) workerList(apiOnly bool) []worker {
	janitor := worker{name: "janitor",
		start: func(ctx context.Context) error { s.janitor.Start(ctx); return nil },
		stop:  func(context.Context) error { s.janitor.Stop(); return nil }}
	if apiOnly {
		return []worker{janitor}
	}
	return []worker{
		janitor,
		// Stopped first: from then on a stage that fails, perhaps of the
		// stop (its tool signalled with the whole service), hands its run
		// back.
		{name: "pipeline", start: s.runner.Start, stop: s.runner.Stop, first: true},
		// Running jobs get what is left of the grace period when it stops,
		// then are handed back.
		{name: "jobs", start: s.startJobs, stop: func(ctx context.Context) error { s.jobs.Stop(ctx); return nil }},
		// After the job system, and so stopped before it: it inserts the
		// publish worker's jobs.
		{name: "publish scheduler",
			start: func(ctx context.Context) error { s.scheduler.Start(ctx); return nil },
			stop:  func(context.Context) error { s.scheduler.Stop(); return nil }},
	}
}

// startJobs gives the rows of every kind that need a job and have none one
// (those a release before the job system left, those whose job gave up),
// then starts the job system.
func (s *Server) startJobs(ctx context.Context) error {
	for _, k := range s.all() {
		if err := k.Adopt(ctx); err != nil {
			return err
		}
	}
	return s.jobs.Start(ctx)
}

// startWorkers starts the workers of workerList in order. The work
// outlives ctx, which bounds the start only; Close ends it.
func (s *Server) startWorkers(ctx context.Context, apiOnly bool) error {
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = cancel
	for _, w := range s.workerList(apiOnly) {
		if err := w.start(runCtx); err != nil {
			return fmt.Errorf("start %s: %w", w.name, err)
		}
		s.workers = append(s.workers, w)
	}
	return nil
}

// stopWorkers stops the started workers marked first, or the others, in
// the reverse of their start, each within ctx.
func (s *Server) stopWorkers(ctx context.Context, first bool) []error {
	var errs []error
	for _, w := range slices.Backward(s.workers) {
		if w.first != first {
			continue
		}
		if err := w.stop(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			errs = append(errs, fmt.Errorf("%s stop: %w", w.name, err))
		}
	}
	return errs
}
