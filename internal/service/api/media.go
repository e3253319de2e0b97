package api

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// serveMedia is GET /media/{projectId}/{file}: a rendered clip or preview
// from DataDir/media, with Range support (206) through http.ServeContent.
// Like a presigned link it needs no API key; the ids are unguessable.
func (a *API) serveMedia(w http.ResponseWriter, r *http.Request) {
	f, st, err := a.openMedia(r.PathValue("projectId"), r.PathValue("file"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", mediaTypes[filepath.Ext(st.Name())])
	w.Header().Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, st.Name(), st.ModTime(), f)
}

// mediaTypes are the files of a clip served: its renders and its captions.
var mediaTypes = map[string]string{
	".mp4": "video/mp4",
	".srt": "application/x-subrip; charset=utf-8",
	".vtt": "text/vtt; charset=utf-8",
}

// errNoMedia is every media address that serves nothing, told alike.
var errNoMedia = notFound("media file")

// openMedia opens a rendered file of a project. Only the .mp4 renders and
// the .srt and .vtt captions are served, never the imported source.
func (a *API) openMedia(project, file string) (*os.File, fs.FileInfo, error) {
	if !safeSegment(project) || !safeSegment(file) || mediaTypes[filepath.Ext(file)] == "" || strings.HasPrefix(file, "source.") {
		return nil, nil, errNoMedia
	}
	f, err := os.Open(filepath.Join(a.mediaDir, project, file))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENAMETOOLONG) {
		return nil, nil, errNoMedia
	}
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = errNoMedia
	}
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// maxSegment is the longest file name Linux file systems take; a longer
// one names nothing.
const maxSegment = 255

// safeSegment accepts one plain path segment: no separators, no dot names,
// no NUL (which the file system refuses), no longer than a file name can be.
func safeSegment(s string) bool {
	return s != "" && len(s) <= maxSegment && !strings.ContainsAny(s, "/\\\x00") && !strings.HasPrefix(s, ".")
}
