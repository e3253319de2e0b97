package api

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/medialink"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// mediaStore is what /media reads of the store: the checksums it answers
// with and the projects whose files it serves.
type mediaStore interface {
	MediaSumOf(ctx context.Context, key string) (store.MediaSum, error)
	GetProject(ctx context.Context, id string) (*store.Project, error)
}

// serveMedia is GET /media/{projectId}/{file}: a rendered clip, its preview
// or captions from the blob store's media, with Range support (206) through
// http.ServeContent. Like a presigned link it needs no API key but a
// signature (package medialink) that has not expired; one issued for a
// public project also needs the project to be public still. The signature
// is checked before the file is looked for, so an address without one
// tells nothing of what exists.
func (a *API) serveMedia(w http.ResponseWriter, r *http.Request) {
	project, file := r.PathValue("projectId"), r.PathValue("file")
	if !mediaName(project, file) {
		a.fail(w, r, errNoMedia)
		return
	}
	if err := a.checkMediaLink(r, project, file); err != nil {
		a.fail(w, r, err)
		return
	}
	f, err := a.openMedia(r.Context(), project, file)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	defer f.Close()
	content, err := a.checkedMedia(r, f)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", mediaTypes[filepath.Ext(file)])
	w.Header().Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(&jsonContentErrors{ResponseWriter: w}, r, file, f.Info().ModTime, content)
	if v, ok := content.(*blob.VerifyingReader); ok && v.Damage() != nil {
		a.log.Error("damaged media cut off mid-download", "path", r.URL.Path, "err", v.Damage())
	}
}

// checkedMedia is what serves f: a render whose size differs from the one
// recorded when it was made is refused (blob.ErrDamaged) before a byte
// goes out, whatever the range; a whole download is also hashed as it is
// sent, and cut short before its last bytes if the SHA-256 differs, so no
// client holds a complete-looking damaged file. That costs one SHA-256
// pass over bytes read anyway (BenchmarkServeMediaVerified), no second
// read. Media made before sums were recorded are served unchecked.
func (a *API) checkedMedia(r *http.Request, f blob.Reader) (blob.Reader, error) {
	sum, err := a.stores.mediaRows.MediaSumOf(r.Context(), f.Info().Key)
	if errors.Is(err, store.ErrNotFound) {
		return f, nil
	}
	if err != nil {
		return nil, err
	}
	v, err := blob.Verifying(f, blob.Sum(sum))
	if err != nil || r.Header.Get("Range") != "" {
		return f, err
	}
	return v, nil
}

// jsonContentErrors turns the plain-text errors http.ServeContent writes
// itself (416 for a Range it cannot serve) into the API's JSON error body;
// its headers, such as Content-Range: bytes */SIZE, are kept.
type jsonContentErrors struct {
	http.ResponseWriter
	failed bool
}

func (j *jsonContentErrors) WriteHeader(code int) {
	if code < 400 {
		j.ResponseWriter.WriteHeader(code)
		return
	}
	j.failed = true
	msg := "Range: cannot be served from this file"
	if code != http.StatusRequestedRangeNotSatisfiable {
		msg = http.StatusText(code)
	}
	writeError(j.ResponseWriter, code, http.StatusText(code), msg)
}

// Write drops ServeContent's own text after a JSON error.
func (j *jsonContentErrors) Write(b []byte) (int, error) {
	if j.failed {
		return len(b), nil
	}
	return j.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the real writer.
func (j *jsonContentErrors) Unwrap() http.ResponseWriter { return j.ResponseWriter }

// checkMediaLink refuses (403) an unsigned, altered or expired address, and
// a public one of a project that is no longer public.
func (a *API) checkMediaLink(r *http.Request, project, file string) error {
	ctx := r.Context()
	public, err := a.links.Check(ctx, project, file, r.URL.Query())
	if errors.Is(err, medialink.ErrUnsigned) || errors.Is(err, medialink.ErrForged) || errors.Is(err, medialink.ErrExpired) {
		return &authError{forbidden: true, msg: err.Error()}
	}
	if err != nil || !public {
		return err
	}
	p, err := a.stores.mediaRows.GetProject(ctx, project)
	if errors.Is(err, store.ErrNotFound) {
		return errNoMedia
	}
	if err != nil {
		return err
	}
	if !medialink.Public(p.Visibility) {
		return &authError{forbidden: true, msg: "the project of this media address is no longer public: read the clip again for a new address"}
	}
	return nil
}

// signedClips are clips as the API answers them (never nil), their media
// addresses signed for their projects' visibility, looking each project up
// once. The store keeps the addresses unsigned; every read hands out signed
// ones.
func (a *API) signedClips(ctx context.Context, clips []store.Clip) ([]apitypes.ExportableClip, error) {
	out := make([]apitypes.ExportableClip, len(clips))
	visibility := map[string]string{}
	for i, c := range clips {
		out[i] = c.API()
		v, seen := visibility[c.ProjectID]
		if !seen {
			p, err := a.stores.mediaRows.GetProject(ctx, c.ProjectID)
			switch {
			case err == nil:
				v = p.Visibility
			case !errors.Is(err, store.ErrNotFound):
				return nil, err
			}
			visibility[c.ProjectID] = v
		}
		if err := a.links.SignClip(ctx, &out[i], v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mediaTypes are the files of a clip served: its renders and its captions.
var mediaTypes = map[string]string{
	".mp4": "video/mp4",
	".srt": "application/x-subrip; charset=utf-8",
	".vtt": "text/vtt; charset=utf-8",
}

// errNoMedia is every media address that serves nothing, told alike.
var errNoMedia = notFound("media file")

// mediaName accepts the names of the files served: the .mp4 renders and
// the .srt and .vtt captions, never the imported source.
func mediaName(project, file string) bool {
	return safeSegment(project) && safeSegment(file) && mediaTypes[filepath.Ext(file)] != "" && !strings.HasPrefix(file, "source.")
}

// openMedia opens a rendered file of a project, named as mediaName accepts.
// The directory store serves it from the disk; a bucket's is proxied, each
// range a ranged GET of the version opened (not a redirect to a presigned
// URL: the signed address keeps its checks, and the bucket may be private).
func (a *API) openMedia(ctx context.Context, project, file string) (blob.Reader, error) {
	f, err := a.media.Open(ctx, blob.MediaKey(project, file))
	if errors.Is(err, blob.ErrNotFound) || errors.Is(err, blob.ErrInvalidKey) {
		return nil, errNoMedia
	}
	return f, err
}

// maxSegment is the longest file name Linux file systems take; a longer
// one names nothing.
const maxSegment = 255

// safeSegment accepts one plain path segment: no separators, no dot names,
// no NUL (which the file system refuses), no longer than a file name can be.
func safeSegment(s string) bool {
	return s != "" && len(s) <= maxSegment && !strings.ContainsAny(s, "/\\\x00") && !strings.HasPrefix(s, ".")
}
