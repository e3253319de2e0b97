// Package janitor deletes what clipperd no longer needs to keep, as object
// stores' lifecycle rules do: uploads never completed, or completed but
// never used by a project, once they are older than the upload expiry; and a
// project's media (its imported source, renders and captions, and the
// upload it was made from, and the clips its posts published to the "dir"
// destination) once its storageExpireAt has passed. The project itself
// stays readable and reports storageStatus EXPIRED; its posts keep their
// post.json, the record of each publication.
package janitor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/repeat"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// Defaults of Config.
const (
	// DefaultUploadExpiry is how long an unfinished or unused upload is
	// kept: a week, as object stores keep incomplete uploads.
	DefaultUploadExpiry = 7 * 24 * time.Hour
	// DefaultPeriod is the time between passes.
	DefaultPeriod = 10 * time.Minute
)

// batch bounds the records one query of a pass reads.
const batch = 100

// Store is what the janitor needs of the store: the records that have
// expired, and their deletion.
type Store interface {
	Now() time.Time
	ExpiredUploads(ctx context.Context, cutoff time.Time, limit int) ([]*store.Upload, error)
	DeleteUpload(ctx context.Context, id string, cutoff time.Time) (deleted bool, err error)
	ExpiredProjects(ctx context.Context, now time.Time, limit int) ([]string, error)
	ExpireProjectMedia(ctx context.Context, id string) (uploads []*store.Upload, err error)
	ProjectPosts(ctx context.Context, project string) ([]store.Post, error)
	DeleteMediaSums(ctx context.Context, prefix string) error
}

// Config configures a Janitor.
type Config struct {
	Store Store
	// Media holds the uploads and the projects' media (blob.MediaPrefix):
	// the janitor deletes only the keys its own database names, so a copy
	// of a data directory never deletes the original's files.
	Media blob.Store
	// Uploads is where incomplete uploads are written when that is not
	// Media (--media in another directory: the data directory); nil:
	// Media. An expired upload is removed from both. On a bucket the chunks
	// of an upload arriving are parts in Media (blob.UploadPartsPrefix),
	// removed with it, and Uploads holds nothing but what an earlier
	// release left: when it is not Media, its files older than the expiry
	// are removed too (each node's janitor sweeps its own disk).
	Uploads blob.Store
	// UploadExpiry is the age after which an upload no project uses is
	// deleted; default DefaultUploadExpiry.
	UploadExpiry time.Duration
	// Period is the time between passes; default DefaultPeriod.
	Period time.Duration
	Logger *slog.Logger // nil = discard
	// Now is the clock that says what has expired; nil = the store's.
	Now func() time.Time
}

// Janitor runs the deletion passes. Create with New; Start, then Stop.
type Janitor struct {
	cfg  Config
	log  *slog.Logger
	loop repeat.Loop
}

// New checks cfg and fills its defaults.
func New(cfg Config) (*Janitor, error) {
	if cfg.Store == nil {
		return nil, errors.New("janitor: Store is required")
	}
	if cfg.Media == nil {
		return nil, errors.New("janitor: Media is required")
	}
	if cfg.UploadExpiry <= 0 {
		cfg.UploadExpiry = DefaultUploadExpiry
	}
	if cfg.Period <= 0 {
		cfg.Period = DefaultPeriod
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = cfg.Store.Now
	}
	return &Janitor{cfg: cfg, log: cfg.Logger}, nil
}

// Start runs a pass now and then every Period until Stop.
func (j *Janitor) Start(ctx context.Context) {
	j.loop.OnFailure = func(err error, failures int, retryIn time.Duration) {
		j.log.Error("janitor pass", "err", err, "failures", failures, "retryIn", retryIn)
	}
	j.loop.Start(ctx, func(ctx context.Context) (time.Duration, error) {
		_, err := j.Pass(ctx)
		return j.cfg.Period, err
	})
}

// Stop cancels a pass in progress and waits for it.
func (j *Janitor) Stop() { j.loop.Stop() }

// Swept is what one pass deleted.
type Swept struct {
	Uploads  int   // expired uploads deleted
	Projects int   // projects whose media were deleted
	Bytes    int64 // bytes of files removed
}

// Pass deletes everything expired at the clock's now. A failure of one
// item is logged and the pass goes on; the error is the first of a listing,
// which ends the pass (the next one tries again).
func (j *Janitor) Pass(ctx context.Context) (Swept, error) {
	var sw Swept
	if err := j.sweepUploads(ctx, &sw); err != nil {
		return sw, err
	}
	if err := j.sweepProjects(ctx, &sw); err != nil {
		return sw, err
	}
	if sw.Uploads > 0 || sw.Projects > 0 {
		j.log.Info("janitor deleted expired storage", "uploads", sw.Uploads, "projects", sw.Projects, "bytes", sw.Bytes)
	}
	return sw, nil
}

// sweepUploads deletes the uploads older than the expiry that no project
// uses: the record first, so a PUT still writing finds its upload gone,
// then the file.
func (j *Janitor) sweepUploads(ctx context.Context, sw *Swept) error {
	cutoff := j.cfg.Now().Add(-j.cfg.UploadExpiry)
	for ctx.Err() == nil {
		ups, err := j.cfg.Store.ExpiredUploads(ctx, cutoff, batch)
		if err != nil {
			return err
		}
		if len(ups) == 0 {
			break
		}
		deleted := 0
		for _, u := range ups {
			ok, err := j.cfg.Store.DeleteUpload(ctx, u.ID, cutoff)
			if err != nil {
				j.log.Error("delete expired upload", "upload", u.ID, "err", err)
				continue
			}
			if ok {
				deleted++
				sw.Uploads++
				sw.Bytes += j.remove(ctx, j.cfg.Media, u.Key)
				sw.Bytes += j.removePrefix(ctx, j.cfg.Media, blob.UploadPartsPrefix(u.ID))
				if j.cfg.Uploads != nil {
					sw.Bytes += j.remove(ctx, j.cfg.Uploads, u.Key)
				}
			}
		}
		if deleted == 0 {
			break // every one failed or was taken into use: leave them to the next pass
		}
	}
	// Files carry the machine's times, whatever clock says what expired.
	return j.sweepLocalUploads(ctx, time.Now().Add(-j.cfg.UploadExpiry), sw)
}

// sweepLocalUploads removes the files under uploads/ in Uploads, when it
// is not Media, last written before cutoff. Nothing there is ever complete
// (a complete upload is moved to Media) and an upload is expired once
// created before cutoff, so such a file is one whose record is gone: an
// upload deleted by another node's janitor, which cannot reach this disk,
// or one a node was writing when it stopped for good.
func (j *Janitor) sweepLocalUploads(ctx context.Context, cutoff time.Time, sw *Swept) error {
	if j.cfg.Uploads == nil || sameStore(j.cfg.Uploads, j.cfg.Media) {
		return nil
	}
	files, err := j.cfg.Uploads.List(ctx, blob.UploadsPrefix)
	if err != nil {
		return fmt.Errorf("list local uploads: %w", err)
	}
	for _, f := range files {
		if !f.ModTime.Before(cutoff) {
			continue
		}
		if err := j.cfg.Uploads.Delete(ctx, f.Key); err != nil {
			j.log.Error("remove a local upload file", "key", f.Key, "err", err)
			continue
		}
		sw.Bytes += f.Size
	}
	return nil
}

// sameStore reports whether a and b hold the same objects: one store, or
// two over one directory.
func sameStore(a, b blob.Store) bool {
	if a == b {
		return true
	}
	la, okA := a.(blob.Local)
	lb, okB := b.(blob.Local)
	if !okA || !okB {
		return false
	}
	pa, errA := la.LocalPath(blob.UploadKey("x"))
	pb, errB := lb.LocalPath(blob.UploadKey("x"))
	return errA == nil && errB == nil && pa == pb
}

// removePrefix deletes the objects under prefix of media and returns their
// size.
func (j *Janitor) removePrefix(ctx context.Context, media blob.Store, prefix string) int64 {
	n, err := media.DeletePrefix(ctx, prefix)
	if err != nil {
		j.log.Error("remove expired files", "prefix", prefix, "err", err)
	}
	return n
}

// sweepProjects deletes the media of ended projects past storageExpireAt:
// the files first (with its posts' copies of its clips), then the record
// says so (a crash in between leaves the project to expire again), then the
// uploads it was made from.
func (j *Janitor) sweepProjects(ctx context.Context, sw *Swept) error {
	for ctx.Err() == nil {
		ids, err := j.cfg.Store.ExpiredProjects(ctx, j.cfg.Now(), batch)
		if err != nil || len(ids) == 0 {
			return err
		}
		expired := 0
		for _, id := range ids {
			if err := j.expireProject(ctx, id, sw); err != nil {
				j.log.Error("delete expired project media", "project", id, "err", err)
				continue
			}
			expired++
		}
		if expired == 0 {
			return nil
		}
	}
	return nil
}

func (j *Janitor) expireProject(ctx context.Context, id string, sw *Swept) error {
	n, err := j.cfg.Media.DeletePrefix(ctx, blob.MediaPrefix(id))
	if err != nil {
		return fmt.Errorf("remove media: %w", err)
	}
	if err := j.cfg.Store.DeleteMediaSums(ctx, blob.MediaPrefix(id)); err != nil {
		return err
	}
	// After the media: a post published from now on finds no clip to copy.
	copies, err := j.removePostCopies(ctx, id)
	if err != nil {
		return err
	}
	ups, err := j.cfg.Store.ExpireProjectMedia(ctx, id)
	if err != nil {
		return err
	}
	sw.Projects++
	sw.Bytes += n + copies
	for _, u := range ups {
		sw.Bytes += j.remove(ctx, j.cfg.Media, u.Key)
		sw.Bytes += j.removePrefix(ctx, j.cfg.Media, blob.UploadPartsPrefix(u.ID))
	}
	return nil
}

// removePostCopies deletes the clips project's posts published to the
// "dir" destination (a hard link holds the render's bytes on disk as long as
// it lives) and returns the bytes that frees beyond the media's: what the
// posts counted, 0 for links to the media just removed.
func (j *Janitor) removePostCopies(ctx context.Context, project string) (int64, error) {
	posts, err := j.cfg.Store.ProjectPosts(ctx, project)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, p := range posts {
		key := blob.PublishedClipKey(p.PostAccountID, p.ID)
		if !blob.ValidKey(key) {
			continue // an id no directory was ever made of
		}
		if j.remove(ctx, j.cfg.Media, key) > 0 {
			n += p.StorageSize
		}
	}
	return n, nil
}

// remove deletes the object key of media and returns its size; an object
// already gone is no error.
func (j *Janitor) remove(ctx context.Context, media blob.Store, key string) int64 {
	info, err := media.Stat(ctx, key)
	if errors.Is(err, blob.ErrNotFound) {
		return 0
	}
	if err == nil {
		err = media.Delete(ctx, key)
	}
	if err != nil {
		j.log.Error("remove expired file", "key", key, "err", err)
		return 0
	}
	return info.Size
}
