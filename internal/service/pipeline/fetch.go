package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/netguard"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// importUpload copies a completed upload to the key dst. The directory
// store shares the bytes (a hard link), so a 30 GB upload is not copied.
func (r *Runner) importUpload(ctx context.Context, p *store.Project, dst string) error {
	id := videoURL(p)
	up, err := r.cfg.Store.GetUpload(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && up.OrgID != p.OrgID) {
		return permanentf("videoUrl %q is not a known uploadId of this organization: create one with POST /api/upload-links", id)
	}
	if err != nil {
		return fmt.Errorf("look up upload %s: %w", id, err)
	}
	if !up.Complete {
		return permanentf("upload %s is incomplete (%d of %d bytes received): finish the PUT of the file before creating the project", id, up.Received, up.Total)
	}
	fi, err := r.cfg.Media.Stat(ctx, up.Key)
	if errors.Is(err, blob.ErrNotFound) || errors.Is(err, blob.ErrInvalidKey) {
		return permanentf("the bytes of upload %s are gone from the server: upload the file again", id)
	}
	if err != nil {
		return fmt.Errorf("read upload %s: %w", id, err)
	}
	if fi.Size > quota.MaxSourceBytes {
		return permanentf("upload %s is %s; the limit is 30 GB", id, gb(fi.Size))
	}
	if err := r.cfg.Media.Copy(ctx, dst, up.Key); err != nil {
		return fmt.Errorf("copy upload %s: %w", id, err)
	}
	return nil
}

// importOwnMedia imports a clip address this clipperd handed out
// ({PublicURL}/media/<projectId>/<file>) from its store, since those addresses
// usually point at this very host. Only a rendered clip (an .mp4 that is not
// a project's source) of a project of the same organization may be
// imported: media addresses need no key, so anything wider would let one
// org read another's sources through a project.
func (r *Runner) importOwnMedia(ctx context.Context, p *store.Project, raw, dst string) error {
	refuse := func() error {
		return permanentf("videoUrl %q is not a rendered clip of a project of this organization: "+
			"a clipperd media address may only name a clip file (<projectId>/<clipId>.mp4) this organization rendered", raw)
	}
	rest := strings.TrimPrefix(strings.TrimSpace(raw), strings.TrimSuffix(r.cfg.PublicURL, "/")+"/media/")
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	rel, err := url.PathUnescape(rest)
	if err != nil {
		return refuse()
	}
	projectID, file, ok := strings.Cut(rel, "/")
	if !ok || projectID == "" || strings.ContainsAny(file, "/\\") || strings.Contains(projectID, "..") ||
		!strings.HasSuffix(file, ".mp4") || strings.HasPrefix(file, "source.") || strings.HasPrefix(file, ".") {
		return refuse()
	}
	owner, err := r.cfg.Store.GetProject(ctx, projectID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && owner.OrgID != p.OrgID) {
		return refuse()
	}
	if err != nil {
		return fmt.Errorf("look up project %s of videoUrl: %w", projectID, err)
	}
	src := blob.MediaKey(projectID, file)
	if _, err := r.cfg.Media.Stat(ctx, src); err != nil {
		return permanentf("videoUrl %q names a clip file that does not exist (anymore) on this server", raw)
	}
	return r.cfg.Media.Copy(ctx, dst, src)
}

// idleTimeout ends a download that has received nothing for this long.
const idleTimeout = 60 * time.Second

var errDownloadIdle = errors.New("no data received for 60 s")

// Limits of an import from the network (Config.ImportTimeout,
// ImportMinRate, ImportRateWindow): a source that trickles would otherwise
// hold a worker for hours, and be retried.
const (
	DefaultImportTimeout    = 2 * time.Hour
	DefaultImportMinRate    = 64 << 10 // bytes per second
	DefaultImportRateWindow = 30 * time.Second
)

// errImportDeadline and errImportSlow end an import that broke its limits;
// both are the source's doing, so the failure is permanent (importLimit).
var (
	errImportDeadline = errors.New("import deadline")
	errImportSlow     = errors.New("import too slow")
)

// withImportDeadline bounds an import from the network by ImportTimeout.
func (r *Runner) withImportDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, r.cfg.ImportTimeout, errImportDeadline)
}

// importLimit turns err, the end of an import under ictx (withImportDeadline)
// from the source shown, into the permanent failure of the limit it broke;
// any other err is returned as it is. Permanent: the source's server chose
// its pace, and a retry would hold a worker as long again.
func (r *Runner) importLimit(ictx context.Context, shown string, err error) error {
	if err == nil {
		return nil
	}
	switch cause := context.Cause(ictx); {
	case errors.Is(cause, errImportDeadline):
		return permanentf("importing %s took longer than %s, the import deadline (--import-timeout): "+
			"host the file on a faster server or upload it (POST /api/upload-links)", shown, r.cfg.ImportTimeout)
	case errors.Is(cause, errImportSlow):
		return &failure{err: cause, permanent: true}
	}
	return err
}

// rateFloor ends a download, through cancel, when a whole window passes in
// which fewer than min bytes per second arrived on average; n counts the
// bytes. It returns when done is closed.
func rateFloor(done <-chan struct{}, cancel context.CancelCauseFunc, n *atomic.Int64, minRate int64, window time.Duration, shown string) {
	t := time.NewTicker(window)
	defer t.Stop()
	var last int64
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		got := n.Load()
		if got-last < int64(float64(minRate)*window.Seconds()) {
			cancel(fmt.Errorf("%w: videoUrl %s sent %d bytes in %s, below the import minimum of %s/s averaged over %s (--import-min-rate): "+
				"host the file on a faster server or upload it (POST /api/upload-links)",
				errImportSlow, shown, got-last, window, quota.FormatSize(minRate), window))
			return
		}
		last = got
	}
}

// download streams an http(s) media file into tmp, then to the key dst,
// refusing more than r.maxDownload bytes, and returns a local file of it
// (blob.StoreFile).
func (r *Runner) download(ctx context.Context, u *url.URL, tmp, dst string) (string, error) {
	shown := redactURL(u)
	ictx, stop := r.withImportDeadline(ctx)
	defer stop()
	dctx, cancel := context.WithCancelCause(ictx)
	defer cancel(nil)
	resp, err := r.get(dctx, u, shown)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	part := filepath.Join(tmp, "download.part")
	if err := r.receive(dctx, cancel, resp, part, shown); err != nil {
		_ = os.Remove(part)
		return "", err
	}
	return blob.StoreFile(ctx, r.cfg.Media, dst, part)
}

// get asks for the media file at u, shown as shown, under ctx (an
// import's, withImportDeadline), and returns the answer when it carries
// the file and is within the download limit.
func (r *Runner) get(ctx context.Context, u *url.URL, shown string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, permanentf("videoUrl %s: %w", shown, err)
	}
	req.Header.Set("User-Agent", "clipperd-import/1")
	resp, err := r.client.Do(req)
	if err != nil {
		var refused *netguard.RefusedError
		if errors.As(err, &refused) {
			return nil, permanentf("videoUrl %s resolves to the private or loopback address %s: clipperd imports only from public addresses unless it is configured to allow private imports", shown, refused.Addr)
		}
		return nil, r.importLimit(ctx, "videoUrl "+shown, fmt.Errorf("download videoUrl %s: %w", shown, err))
	}
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode <= 299:
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		resp.Body.Close()
		return nil, fmt.Errorf("download videoUrl %s: the server answered %s", shown, resp.Status)
	default:
		resp.Body.Close()
		return nil, permanentf("videoUrl %s answered %s: it must be a public address of an MP4 file", shown, resp.Status)
	}
	if resp.ContentLength > r.maxDownload {
		resp.Body.Close()
		return nil, permanentf("videoUrl %s is %s; links to media files are limited to %s", shown, gb(resp.ContentLength), gb(r.maxDownload))
	}
	return resp, nil
}

// receive writes resp's body to the file part, cutting it (through
// cancel, which ends ctx) when it idles or trickles below the rate floor.
func (r *Runner) receive(ctx context.Context, cancel context.CancelCauseFunc, resp *http.Response, part, shown string) error {
	f, err := os.Create(part)
	if err != nil {
		return fmt.Errorf("create %s: %w", part, err)
	}
	idle := time.AfterFunc(idleTimeout, func() { cancel(errDownloadIdle) })
	defer idle.Stop()
	var got atomic.Int64
	if r.cfg.ImportMinRate > 0 {
		done := make(chan struct{})
		defer close(done)
		go rateFloor(done, cancel, &got, r.cfg.ImportMinRate, r.cfg.ImportRateWindow, shown)
	}
	limit := r.maxDownload
	n, err := io.Copy(f, io.LimitReader(idleReader{resp.Body, idle, &got}, limit+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch cause := context.Cause(ctx); {
	case err != nil && (errors.Is(cause, errImportSlow) || errors.Is(cause, errImportDeadline)):
		return r.importLimit(ctx, "videoUrl "+shown, err)
	case err != nil && errors.Is(cause, errDownloadIdle):
		return fmt.Errorf("download videoUrl %s stalled: %w", shown, errDownloadIdle)
	case err != nil:
		return fmt.Errorf("download videoUrl %s: %w", shown, err)
	case n > limit:
		return permanentf("videoUrl %s is larger than %s, the limit for links to media files", shown, gb(limit))
	case resp.ContentLength >= 0 && n != resp.ContentLength:
		return fmt.Errorf("download videoUrl %s: got %d of %d bytes", shown, n, resp.ContentLength)
	}
	return nil
}

// idleReader pushes back the idle timer whenever bytes arrive, and counts
// them for the rate floor.
type idleReader struct {
	r io.Reader
	t *time.Timer
	n *atomic.Int64
}

func (ir idleReader) Read(p []byte) (int, error) {
	n, err := ir.r.Read(p)
	if n > 0 {
		ir.t.Reset(idleTimeout)
		ir.n.Add(int64(n))
	}
	return n, err
}
