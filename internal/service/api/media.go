package api

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// serveMedia is GET /media/{projectId}/{file}: a rendered clip or preview
// from DataDir/media, with Range support (206) through http.ServeContent.
// Like a presigned link it needs no API key; the ids are unguessable. Only
// the .mp4 renders are served, never the imported source.
func (a *API) serveMedia(w http.ResponseWriter, r *http.Request) {
	project, file := r.PathValue("projectId"), r.PathValue("file")
	if !safeSegment(project) || !safeSegment(file) || !strings.HasSuffix(file, ".mp4") || strings.HasPrefix(file, "source.") {
		storageNotFound(w, "media file")
		return
	}
	f, err := os.Open(filepath.Join(a.mediaDir, project, file))
	if errors.Is(err, fs.ErrNotExist) {
		storageNotFound(w, "media file")
		return
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if !st.Mode().IsRegular() {
		storageNotFound(w, "media file")
		return
	}
	w.Header().Set("Content-Type", "video/mp4")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, file, st.ModTime(), f)
}

// safeSegment accepts one plain path segment: no separators, no dot names.
func safeSegment(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, `/\`) && !strings.HasPrefix(s, ".")
}
