// Package janitor deletes what clipperd no longer needs to keep, as object
// stores' lifecycle rules do: uploads never completed, or completed but
// never used by a project, once they are older than the upload expiry; and a
// project's media (its imported source, renders and captions, and the
// upload it was made from) once its storageExpireAt has passed. The project
// itself stays readable and reports storageStatus EXPIRED.
package janitor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

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

// Config configures a Janitor.
type Config struct {
	Store   *store.Store
	DataDir string // project media under DataDir/media/<projectId>
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
	if cfg.DataDir == "" {
		return nil, errors.New("janitor: DataDir is required")
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
	j.loop.Start(ctx, func(ctx context.Context) time.Duration {
		if _, err := j.Pass(ctx); err != nil && ctx.Err() == nil {
			j.log.Error("janitor pass", "err", err)
		}
		return j.cfg.Period
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
		if err != nil || len(ups) == 0 {
			return err
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
				sw.Bytes += j.remove(u.Path)
			}
		}
		if deleted == 0 {
			return nil // every one failed or was taken into use: leave them to the next pass
		}
	}
	return nil
}

// sweepProjects deletes the media of ended projects past storageExpireAt:
// the files first, then the record says so (a crash in between leaves the
// project to expire again), then the uploads it was made from.
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
	dir := filepath.Join(j.cfg.DataDir, "media", id)
	n := dirSize(dir)
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove media: %w", err)
	}
	ups, err := j.cfg.Store.ExpireProjectMedia(ctx, id)
	if err != nil {
		return err
	}
	sw.Projects++
	sw.Bytes += n
	for _, u := range ups {
		sw.Bytes += j.remove(u.Path)
	}
	return nil
}

// remove deletes the file at path and returns its size; a file already
// gone is no error.
func (j *Janitor) remove(path string) int64 {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0
	}
	if err == nil {
		err = os.Remove(path)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		j.log.Error("remove expired file", "path", path, "err", err)
		return 0
	}
	return fi.Size()
}

// dirSize is the bytes of the regular files under dir (0 when it is gone).
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil //nolint:nilerr // a file that vanished counts nothing
		}
		if fi, err := d.Info(); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}
