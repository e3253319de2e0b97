package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/sources"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// sourceName is the imported source's file in the project's media directory.
const sourceName = "source.mp4"

// importStage puts the source at the key media/<id>/source.mp4, probes it,
// checks the limits and charges the credits beyond those reserved at create.
// A source complete from an earlier attempt is reused: objects only appear
// whole. The run's temporary directory is made here, at its first stage.
func (r *Runner) importStage(ctx context.Context, j *job) error {
	if err := r.fetchStage(ctx, j); err != nil {
		return err
	}
	dst := blob.MediaKey(j.p.ID, sourceName)
	raw := videoURL(j.p)
	src, _ := sources.Classify(raw)
	var err error
	// ffmpeg reads the source many times (probe, audio, every render), with
	// seeks: from a local file, the object itself in a directory store, a
	// copy in the run's temporary directory from a bucket (or the download
	// just stored there).
	if j.source == "" {
		if j.source, err = blob.LocalFile(ctx, r.cfg.Media, dst, j.tmp); err != nil {
			return fmt.Errorf("read the imported source: %w", err)
		}
	}

	pr, err := media.Probe(ctx, j.source)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		if missingTool(err) {
			r.log.Error("ffprobe is not installed (not on PATH): projects wait until it is", "project", j.p.ID, "err", err)
			return &userError{"the server cannot read videos now (ffprobe is not installed); the project is retried", err}
		}
		// ffprobe's own words name server paths; they go to the log, and the
		// user reads what to fix. Retrying reads the same bytes: permanent.
		r.log.Warn("probe of imported source failed", "project", j.p.ID, "err", err)
		what := describeSource(src)
		if errors.Is(err, media.ErrNotVideo) {
			return &failure{err: &userError{what + " is not a video: ffmpeg finds no video stream it can decode", err}, permanent: true}
		}
		return &failure{err: &userError{what + " is not a media file ffmpeg can read", err}, permanent: true}
	}
	if pr.DurationSec > quota.MaxDurationSec {
		return permanentf("the video is %s long; the limit is 10 hours", clock(pr.DurationSec))
	}
	size := pr.SizeBytes
	if size <= 0 {
		size = sourceSize(j.source)
	}
	if size > quota.MaxSourceBytes {
		return permanentf("the video is %s; the limit is 30 GB", gb(size))
	}
	j.probe = pr
	cp := curationPref(j.p)
	span, ranged, err := processedSpan(&cp, pr.DurationSec)
	if err != nil {
		return err
	}
	j.span, j.ranged = span, ranged
	if err := r.chargeCredits(ctx, j); err != nil {
		return err
	}
	p, err := r.cfg.Store.MutateProject(ctx, j.p.ID, func(p *store.Project) error {
		if err := fence(p, j.run); err != nil {
			return err
		}
		p.SourceKey, p.SourceDurationSec = dst, pr.DurationSec
		p.StorageSize = size
		if p.SourcePlatform == "" {
			p.SourcePlatform = sources.Platform(raw)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record source: %w", err)
	}
	j.p = p
	return nil
}

// fetchStage puts the source at the key media/<id>/source.mp4 unless it is
// there from an earlier attempt (objects only appear whole), in the run's
// temporary directory, which it makes; j.source is the local file of a
// download.
func (r *Runner) fetchStage(ctx context.Context, j *job) error {
	tmp, err := r.cfg.Scratch.Make(j.tmpName)
	if err != nil {
		return fmt.Errorf("temporary directory: %w", err)
	}
	j.tmp = tmp
	dst := blob.MediaKey(j.p.ID, sourceName)
	if _, err := r.cfg.Media.Stat(ctx, dst); err == nil {
		return nil
	}
	raw := videoURL(j.p)
	src, classErr := sources.Classify(raw)
	switch {
	case sources.OwnMedia(raw, r.cfg.PublicURL):
		return r.importOwnMedia(ctx, j.p, raw, dst)
	case classErr != nil:
		return &failure{err: classErr, permanent: true}
	case src.Kind == sources.KindUpload:
		return r.importUpload(ctx, j.p, dst)
	case src.Kind == sources.KindLink:
		j.source, err = r.download(ctx, src.URL, j.tmp, dst)
	case src.Kind == sources.KindPage:
		j.source, err = r.ytdlp(ctx, src.URL, src.Site, j.tmp, dst)
	}
	return err
}

// fromNetwork: the source of p is fetched from the network (a link or a
// video page), by the import leg on the import queue.
func (r *Runner) fromNetwork(p *store.Project) bool {
	raw := videoURL(p)
	src, err := sources.Classify(raw)
	return err == nil && !sources.OwnMedia(raw, r.cfg.PublicURL) && (src.Kind == sources.KindLink || src.Kind == sources.KindPage)
}

// describeSource names the source in messages without leaking link secrets.
func describeSource(src sources.Source) string {
	if src.Kind == sources.KindUpload {
		return "the upload " + src.ID
	}
	if src.URL == nil {
		return "videoUrl"
	}
	return "videoUrl " + redactURL(src.URL)
}

// processedSpan is the part of the source the project covers: its
// curationPref.range, checked against the real length, or the whole video.
func processedSpan(cp *apitypes.CurationPref, dur float64) (media.Interval, bool, error) {
	whole := media.Interval{Start: 0, End: dur}
	if cp == nil || cp.Range == nil || cp.Range.StartSec == nil || cp.Range.EndSec == nil {
		return whole, false, nil
	}
	start, end := *cp.Range.StartSec, *cp.Range.EndSec
	// Half a second of slack: lengths from a player or ffprobe disagree by frames.
	const slack = 0.5
	switch {
	case start < 0 || end <= start:
		return whole, false, permanentf("curationPref.range must have 0 <= startSec < endSec, got %g..%g", start, end)
	case start >= dur:
		return whole, false, permanentf("curationPref.range starts at %gs, past the end of the video (%s long)", start, clock(dur))
	case end > dur+slack:
		return whole, false, permanentf("curationPref.range ends at %gs, past the end of the video (%s long); set endSec to at most %.1f", end, clock(dur), dur)
	}
	return media.Interval{Start: start, End: math.Min(end, dur)}, true, nil
}

// chargeCredits takes the project's full cost, one credit per started
// minute of processed source and at least the API minimum, less what was
// reserved at create. A retry charges nothing twice.
func (r *Runner) chargeCredits(ctx context.Context, j *job) error {
	total := quota.ProjectCredits(j.span.End - j.span.Start)
	p, err := r.cfg.Store.ChargeProjectCredits(ctx, j.p.ID, total, r.cfg.MonthlyCredits)
	var capErr *quota.MonthlyCapError
	if errors.As(err, &capErr) {
		return permanentf("monthly API cap of %d credits reached: this video needs %d more credits (%d of %d used this month); the cap resets at %s",
			capErr.Cap, capErr.Needed, capErr.Used, capErr.Cap, capErr.ResetAt.Format(time.RFC3339))
	}
	if err != nil {
		return fmt.Errorf("charge credits: %w", err)
	}
	j.p = p
	return nil
}

// sourceSize is the size of a file, 0 when it is missing.
func sourceSize(path string) int64 {
	if path == "" {
		return 0
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// clock formats seconds as m:ss or h:mm:ss.
func clock(sec float64) string {
	s := int64(math.Round(sec))
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

func gb(n int64) string { return fmt.Sprintf("%.1f GB", float64(n)/1e9) }

// objectSize is the size of the object key, 0 when it is missing.
func (r *Runner) objectSize(ctx context.Context, key string) int64 {
	if key == "" {
		return 0
	}
	info, err := r.cfg.Media.Stat(ctx, key)
	if err != nil {
		return 0
	}
	return info.Size
}
