// Package censorjobs runs censor jobs: the Worker finds the words of the
// profanity list (profanity.txt) in a clip's transcript, and by hearing
// them in the clip's audio (Hear, with a Spotter: pocketsphinx's keyword
// spotting, then a decode among the listed and the transcript's words, which
// hears a word the recogniser's language model turned into likelier ones),
// and renders the clip's export and preview again with those words' spans
// silenced, or beeped at 1 kHz. Each QUEUED job has a job in the job system (package
// jobs), inserted in the transaction that stores the row and completed in
// the one that records its outcome, so a job cut short by a stop or a crash
// runs again, on this process or another.
//
// Objects, under the key prefix media/{projectId}/: the censored render replaces
// {clipId}.mp4 and {clipId}.preview.mp4, the files the clip's uriForExport
// and uriForPreview serve. The original render is kept beside it as
// {clipId}.mp4.{version}.orig and {clipId}.preview.mp4.{version}.orig, where
// version names the clip's render (a project run again renders new clips,
// whose originals get a new name); /media never serves them. Every censor
// job of a clip starts from that original, so a later job (beep instead of
// silence) replaces an earlier one's result instead of censoring it again,
// and a job run again after a crash renders the same result.
package censorjobs

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/scratch"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

// timeout bounds one attempt and is its lease: two ffmpeg runs over a
// clip's export and preview take seconds, minutes for the longest clips on
// a loaded box; a job claimed this long ago by a process that died is run
// again.
const timeout = 10 * time.Minute

// args is the job of one censor job row, named by its id.
type args struct {
	CensorJobID string `json:"censor_job_id"`
}

func (args) Kind() string { return "censor" }

// Store is what the worker needs of the store: the unfinished jobs,
// their clips and transcripts, and a job's start and outcome.
type Store interface {
	UnfinishedCensorJobs(ctx context.Context) ([]string, error)
	StartCensorJob(ctx context.Context, id string) (bool, error)
	CensorJob(ctx context.Context, id string) (*store.CensorJob, error)
	GetClip(ctx context.Context, id string) (*store.Clip, error)
	Transcript(ctx context.Context, projectID string) ([]store.TranscriptWord, error)
	GetProject(ctx context.Context, id string) (*store.Project, error)
	FinishCensorJob(ctx context.Context, j *store.CensorJob, then store.TxHook) error
	RecordMediaSum(ctx context.Context, key string, sum store.MediaSum) error
}

// Config configures a Worker.
type Config struct {
	Store   Store
	Jobs    *jobs.Jobs
	Media   blob.Store   // the clips' renders (blob.MediaKey)
	Scratch scratch.Dirs // each job's temporary files, DATA/tmp/<owner>/<jobId>
	Logger  *slog.Logger // nil = discard
	// Spotter, when set, spots the profanity list's words in each clip's
	// audio besides the transcript's (an English sourceLang, or auto or
	// none, only: the list and pocketsphinx's model are English).
	Spotter Spotter
}

// Spotter finds where keyphrases are spoken in a 16 kHz mono WAV file, and
// which of some words its sound fits best (transcribe.Pocketsphinx).
type Spotter interface {
	Spot(ctx context.Context, wavPath string, phrases []transcribe.Keyphrase) ([]transcribe.Word, error)
	DecodeAmong(ctx context.Context, wavPath string, words []string, extra []transcribe.Pronunciation) ([]transcribe.Word, error)
}

// Worker censors the clips of the jobs the job system hands it, one after
// another (each is an ffmpeg run over two short files).
type Worker struct {
	store   Store
	jobs    *jobs.Jobs
	rows    *jobs.Rows[args]
	media   blob.Store
	scratch scratch.Dirs
	log     *slog.Logger
	spotter Spotter

	// beforeRun, when a test sets it, is called with each job once it is
	// PROCESSING, before its clip is censored.
	beforeRun func(ctx context.Context, jobID string)
}

// New checks cfg and registers the worker's kind with cfg.Jobs, which runs
// it from its Start.
func New(cfg Config) (*Worker, error) {
	if cfg.Store == nil || cfg.Jobs == nil {
		return nil, errors.New("censorjobs: Store and Jobs are required")
	}
	if cfg.Media == nil || cfg.Scratch.Root() == "" {
		return nil, errors.New("censorjobs: Media and Scratch are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	w := &Worker{store: cfg.Store, jobs: cfg.Jobs, media: cfg.Media, scratch: cfg.Scratch, log: cfg.Logger, spotter: cfg.Spotter}
	var err error
	w.rows, err = jobs.RegisterRows(cfg.Jobs, jobs.RowKind[args, string, *store.CensorJob]{
		Kind: jobs.Kind{Queue: jobs.QueueCensor, Timeout: timeout}, Row: "censor job", Logger: cfg.Logger,
		Pending: w.store.UnfinishedCensorJobs, Args: func(id string) args { return args{CensorJobID: id} },
		ID: func(a args) string { return a.CensorJobID }, Get: w.start, Gone: store.ErrNotFound,
		Needs: func(j *store.CensorJob) bool { return j.Status == apitypes.CensorProcessing }, Work: w.run,
	})
	if err != nil {
		return nil, fmt.Errorf("censorjobs: %w", err)
	}
	return w, nil
}

// Enqueue is store.CreateCensorJob's enqueue for j: it adds j's job in the
// transaction that stores j QUEUED.
func (w *Worker) Enqueue(j *store.CensorJob) store.TxHook {
	return w.rows.Enqueue(func() args { return args{CensorJobID: j.ID} })
}

// Adopt gives every QUEUED or PROCESSING censor job without a job one:
// those an older release left, and any whose job gave up.
func (w *Worker) Adopt(ctx context.Context) error { return w.rows.Adopt(ctx) }

// start makes the row id PROCESSING, unless it has an outcome already, and
// reads it.
func (w *Worker) start(ctx context.Context, id string) (*store.CensorJob, error) {
	if _, err := w.store.StartCensorJob(ctx, id); err != nil {
		return nil, err
	}
	return w.store.CensorJob(ctx, id)
}

// run censors the clip of the job's PROCESSING row and records the outcome
// with the job's completion. An error retries the job; on its last attempt
// the row is finished FAILED instead.
func (w *Worker) run(ctx context.Context, job *jobs.Job[args], j *store.CensorJob) error {
	id := j.ID
	if w.beforeRun != nil {
		w.beforeRun(ctx, id)
	}
	if err := w.censor(ctx, j); err != nil {
		if ctx.Err() != nil || !job.LastAttempt() {
			return err
		}
		w.log.Error("censor job failed on its last attempt", "job", id, "attempt", job.Attempt, "err", err)
		j.Status, j.Error = apitypes.CensorFailed, "the clip could not be read; create the job again"
	}
	// The outcome is recorded even when a stop comes now: it is made.
	err := w.store.FinishCensorJob(context.WithoutCancel(ctx), j, func(ctx context.Context, tx *sql.Tx) error {
		return jobs.CompleteTx(ctx, tx, job)
	})
	if err != nil {
		return err
	}
	w.log.Info("censor job finished", "job", id, "status", j.Status, "words", j.Words, "error", j.Error)
	return nil
}

// censor sets j's outcome: CONCLUDED with the clip's files censored, or
// FAILED with why. An error (the worker is stopping, or the clip could not
// be read) leaves j without an outcome.
func (w *Worker) censor(ctx context.Context, j *store.CensorJob) error {
	clip, err := w.store.GetClip(ctx, j.ProjectID+"."+j.ClipID)
	if err == nil && clip.OrgID != j.OrgID {
		err = store.ErrNotFound
	}
	var words []store.TranscriptWord
	if err == nil {
		words, err = w.store.Transcript(ctx, j.ProjectID)
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		j.Status, j.Error = apitypes.CensorFailed, fmt.Sprintf("clip %q of project %q no longer exists", j.ClipID, j.ProjectID)
		return nil
	case err != nil:
		return fmt.Errorf("read the clip of censor job %s: %w", j.ID, err)
	}
	if len(clip.TimeRanges) == 0 {
		j.Status, j.Error = apitypes.CensorFailed, fmt.Sprintf("clip %q has no time range", j.ClipID)
		return nil
	}
	spans := Spans(words, clip.TimeRanges[0][0], clip.TimeRanges[0][1])
	tmp, err := w.scratch.Make(j.ID)
	if err != nil {
		return fmt.Errorf("temporary directory of censor job %s: %w", j.ID, err)
	}
	defer func() {
		if err := w.scratch.Remove(j.ID); err != nil {
			w.log.Warn("remove a censor job's temporary files", "job", j.ID, "err", err)
		}
	}()
	version := renderVersion(clip)
	names := []string{j.ClipID + ".mp4", j.ClipID + ".preview.mp4"}
	srcs := make([]string, len(names))
	for i, name := range names {
		if srcs[i], err = w.original(ctx, j.ProjectID, name, version, tmp); err != nil {
			return w.failed(ctx, j, name, err)
		}
	}
	if w.spotter != nil && w.spotsIn(ctx, j.ProjectID) {
		// The export's audio: the preview is the same clip, timed alike.
		wav := filepath.Join(tmp, "audio.wav")
		if err := transcribe.ExtractWAV(ctx, srcs[0], 0, 0, wav); err != nil {
			return w.failed(ctx, j, names[0], err)
		}
		// A failing spotter (pocketsphinx crashing) is not the clip's
		// fault: the job is retried.
		heard, err := Hear(ctx, w.spotter, wav, Vocabulary(words, clip.TimeRanges[0][0], clip.TimeRanges[0][1]))
		if err != nil {
			return fmt.Errorf("censor job %s: spot the words: %w", j.ID, err)
		}
		for _, h := range heard.Kept {
			spans = append(spans, Pad(h.Start, h.End))
		}
	}
	spans = Merge(spans)
	for i, name := range names {
		if err := w.render(ctx, j.ProjectID, name, srcs[i], tmp, spans, j.Beep); err != nil {
			return w.failed(ctx, j, name, err)
		}
	}
	j.Status, j.Words = apitypes.CensorConcluded, len(spans)
	return nil
}

// failed makes err, from reading or censoring the clip file name, j's
// outcome: ffmpeg refusing the file would refuse it again, not a reason to
// retry. A stop is returned instead.
func (w *Worker) failed(ctx context.Context, j *store.CensorJob, name string, err error) error {
	if ctx.Err() != nil {
		return err
	}
	w.log.Error("censor a clip file", "job", j.ID, "file", name, "err", err)
	j.Status, j.Error = apitypes.CensorFailed, fmt.Sprintf("censoring %s failed: %v", name, err)
	return nil
}

// spotsIn reports whether the words are spotted in project's clips: its
// sourceLang is English, auto or unset (a project gone counts as unset:
// its clip is gone too, which the job finds).
func (w *Worker) spotsIn(ctx context.Context, project string) bool {
	p, err := w.store.GetProject(ctx, project)
	if err != nil || p.ImportPref == nil {
		return true
	}
	return transcribe.English(p.ImportPref.SourceLang)
}

// renderVersion names a clip's render: its run and creation time, which a
// project run again changes. The time is hashed as the API writes it, as
// releases that kept clips as text did, so the originals they kept are
// found again.
func renderVersion(c *store.Clip) string {
	sum := sha256.Sum256([]byte(c.RunID + "|" + c.API().CreatedAt))
	return hex.EncodeToString(sum[:6])
}

// OriginalName is the file the original render of name (a clip's export or
// preview) is kept in once the clip is censored.
func OriginalName(name, version string) string { return name + "." + version + ".orig" }

// original keeps the original render of the object name of project (a
// copy, which the directory store makes a hard link) unless kept already,
// and returns a local file of it in tmp: a job cut short at any point runs
// again from the same original.
func (w *Worker) original(ctx context.Context, project, name, version, tmp string) (string, error) {
	served := blob.MediaKey(project, name)
	orig := blob.MediaKey(project, OriginalName(name, version))
	if _, err := w.media.Stat(ctx, orig); errors.Is(err, blob.ErrNotFound) {
		if err := w.media.Copy(ctx, orig, served); err != nil {
			return "", fmt.Errorf("keep the original: %w", err)
		}
		w.removeStaleOriginals(ctx, project, name, orig)
	} else if err != nil {
		return "", err
	}
	return blob.LocalFile(ctx, w.media, orig, tmp)
}

// render renders the object name of project censored from its original
// src, in the job's temporary directory tmp, and replaces the served
// object with it, whole, only once the original is kept.
func (w *Worker) render(ctx context.Context, project, name, src, tmp string, spans []media.CensorSpan, beep bool) error {
	served := blob.MediaKey(project, name)
	out := filepath.Join(tmp, name)
	if err := media.CensorAudio(ctx, src, out, spans, beep); err != nil {
		return err
	}
	// Its new size and SHA-256, by which it is checked before it is served
	// whole or published.
	sum, err := blob.PutFileSum(ctx, w.media, served, out)
	if err != nil {
		return err
	}
	return w.store.RecordMediaSum(ctx, served, store.MediaSum(sum))
}

// removeStaleOriginals deletes the originals of earlier renders of name.
func (w *Worker) removeStaleOriginals(ctx context.Context, project, name, keep string) {
	objects, _ := w.media.List(ctx, blob.MediaPrefix(project))
	prefix := blob.MediaKey(project, name) + "."
	for _, o := range objects {
		if o.Key != keep && strings.HasPrefix(o.Key, prefix) && strings.HasSuffix(o.Key, ".orig") &&
			strings.Count(o.Key, ".") == strings.Count(keep, ".") {
			_ = w.media.Delete(ctx, o.Key)
		}
	}
}
