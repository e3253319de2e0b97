// Package censorjobs runs censor jobs: the Worker finds the words of the
// profanity list (profanity.txt) in a clip's transcript and renders the
// clip's export and preview again with those words' spans silenced, or
// beeped at 1 kHz. Jobs live in the store, so a job that a stopped process
// left QUEUED or PROCESSING is run by the next Start.
//
// Objects, under the key prefix media/{projectId}/: the censored render replaces
// {clipId}.mp4 and {clipId}.preview.mp4, the files the clip's uriForExport
// and uriForPreview serve. The original render is kept beside it as
// {clipId}.mp4.{version}.orig and {clipId}.preview.mp4.{version}.orig, where
// version names the clip's render (a project run again renders new clips,
// whose originals get a new name); /media never serves them. Every censor
// job of a clip starts from that original, so a later job (beep instead of
// silence) replaces an earlier one's result instead of censoring it again.
package censorjobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/repeat"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/scratch"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// Config configures a Worker.
type Config struct {
	Store   *store.Store
	Media   blob.Store   // the clips' renders (blob.MediaKey)
	Scratch scratch.Dirs // each job's temporary files, DATA/tmp/<jobId>
	Logger  *slog.Logger // nil = discard
}

// Worker runs censor jobs one after another (each is an ffmpeg run over
// two short files).
type Worker struct {
	store   *store.Store
	media   blob.Store
	scratch scratch.Dirs
	log     *slog.Logger
	jobs    repeat.Queue
}

// New checks cfg.
func New(cfg Config) (*Worker, error) {
	if cfg.Store == nil {
		return nil, errors.New("censorjobs: Store is required")
	}
	if cfg.Media == nil || cfg.Scratch.Root() == "" {
		return nil, errors.New("censorjobs: Media and Scratch are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Worker{store: cfg.Store, media: cfg.Media, scratch: cfg.Scratch, log: cfg.Logger}, nil
}

// Start queues the jobs an earlier process left QUEUED or PROCESSING, then
// runs jobs until Stop. ctx bounds the lookup only.
func (w *Worker) Start(ctx context.Context) error {
	left, err := w.store.UnfinishedCensorJobs(ctx)
	if err != nil {
		return fmt.Errorf("censorjobs: %w", err)
	}
	if len(left) > 0 {
		w.log.Info("resuming unfinished censor jobs", "count", len(left))
	}
	if err := w.jobs.Start(ctx, left, w.run); err != nil {
		return fmt.Errorf("censorjobs: %w", err)
	}
	return nil
}

// Submit queues a job without blocking.
func (w *Worker) Submit(jobID string) { w.jobs.Submit(jobID) }

// Stop cancels the job in progress, then always waits, so nothing uses the
// store after Stop. A job cut short runs again after the next Start.
func (w *Worker) Stop() { w.jobs.Stop() }

// run censors job id, unless it has an outcome already, and records the
// outcome.
func (w *Worker) run(ctx context.Context, id string) {
	ok, err := w.store.StartCensorJob(ctx, id)
	if err != nil || !ok {
		if err != nil && ctx.Err() == nil {
			w.log.Error("start censor job", "job", id, "err", err)
		}
		return
	}
	j, err := w.store.CensorJob(ctx, id)
	if err != nil {
		if ctx.Err() == nil {
			w.log.Error("read censor job", "job", id, "err", err)
		}
		return
	}
	if !w.censor(ctx, j) {
		return // stopped: the job stays PROCESSING
	}
	if err := w.store.FinishCensorJob(context.WithoutCancel(ctx), j); err != nil {
		w.log.Error("finish censor job", "job", id, "err", err)
		return
	}
	w.log.Info("censor job finished", "job", id, "status", j.Status, "words", j.Words, "error", j.Error)
}

// censor sets j's outcome: CONCLUDED with the clip's files censored, or
// FAILED with why. It is false, leaving j without an outcome, when the
// worker is stopping.
func (w *Worker) censor(ctx context.Context, j *store.CensorJob) bool {
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
		return true
	case err != nil && ctx.Err() != nil:
		return false
	case err != nil:
		w.log.Error("read the clip of a censor job", "job", j.ID, "err", err)
		j.Status, j.Error = apitypes.CensorFailed, "the clip could not be read; create the job again"
		return true
	}
	if len(clip.TimeRanges) == 0 {
		j.Status, j.Error = apitypes.CensorFailed, fmt.Sprintf("clip %q has no time range", j.ClipID)
		return true
	}
	spans := Spans(words, clip.TimeRanges[0][0], clip.TimeRanges[0][1])
	tmp, err := w.scratch.Make(j.ID)
	if err != nil {
		w.log.Error("temporary directory of a censor job", "job", j.ID, "err", err)
		j.Status, j.Error = apitypes.CensorFailed, "the server could not make a temporary directory; create the job again"
		return true
	}
	defer func() {
		if err := w.scratch.Remove(j.ID); err != nil {
			w.log.Warn("remove a censor job's temporary files", "job", j.ID, "err", err)
		}
	}()
	version := renderVersion(clip)
	for _, name := range []string{j.ClipID + ".mp4", j.ClipID + ".preview.mp4"} {
		if err := w.censorFile(ctx, j.ProjectID, name, version, tmp, spans, j.Beep); err != nil {
			if ctx.Err() != nil {
				return false
			}
			w.log.Error("censor a clip file", "job", j.ID, "file", name, "err", err)
			j.Status, j.Error = apitypes.CensorFailed, fmt.Sprintf("censoring %s failed: %v", name, err)
			return true
		}
	}
	j.Status, j.Words = apitypes.CensorConcluded, len(spans)
	return true
}

// renderVersion names a clip's render: its run and creation time, which a
// project run again changes.
func renderVersion(c *apitypes.ExportableClip) string {
	sum := sha256.Sum256([]byte(c.RunID + "|" + c.CreatedAt))
	return hex.EncodeToString(sum[:6])
}

// OriginalName is the file the original render of name (a clip's export or
// preview) is kept in once the clip is censored.
func OriginalName(name, version string) string { return name + "." + version + ".orig" }

// censorFile renders the object name of project censored from its
// original, in the job's temporary directory tmp. The original is kept
// first (a copy, which the directory store makes a hard link): the served
// object is replaced only once the original exists, and only whole, so a
// job cut short at any point runs again from the same original.
func (w *Worker) censorFile(ctx context.Context, project, name, version, tmp string, spans []media.CensorSpan, beep bool) error {
	served := blob.MediaKey(project, name)
	orig := blob.MediaKey(project, OriginalName(name, version))
	if _, err := w.media.Stat(ctx, orig); errors.Is(err, blob.ErrNotFound) {
		if err := w.media.Copy(ctx, orig, served); err != nil {
			return fmt.Errorf("keep the original: %w", err)
		}
		w.removeStaleOriginals(ctx, project, name, orig)
	} else if err != nil {
		return err
	}
	src, err := blob.LocalFile(ctx, w.media, orig, tmp)
	if err != nil {
		return err
	}
	out := filepath.Join(tmp, name)
	if err := media.CensorAudio(ctx, src, out, spans, beep); err != nil {
		return err
	}
	return blob.PutFile(ctx, w.media, served, out)
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
