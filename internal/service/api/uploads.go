package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// maxUploadBytes is the spec's file size limit (30 GB), the one the
// pipeline applies to every source.
const maxUploadBytes = quota.MaxSourceBytes

// uploadStatus is the small body of the 200 that ends an upload. The spec
// shows no body for it; this one lets a client confirm what was stored.
type uploadStatus struct {
	UploadID string `json:"uploadId"`
	Size     int64  `json:"size"`
	Complete bool   `json:"complete"`
}

// createUploadLink is POST /api/upload-links (usecase LocalUpload). The
// returned url is this server's object-storage address for the upload.
func (a *API) createUploadLink(w http.ResponseWriter, r *http.Request) {
	key := caller(r)
	var req apitypes.UploadLinkRequest
	if err := decodeJSON(w, r, &req); err != nil {
		a.fail(w, r, err)
		return
	}
	switch req.Video.Usecase {
	case apitypes.UsecaseLocalUpload:
	case "":
		a.fail(w, r, badField("video.usecase", "is required; %s uploads a local file", apitypes.UsecaseLocalUpload))
		return
	default:
		a.fail(w, r, badField("video.usecase", "must be %s, not %q", apitypes.UsecaseLocalUpload, req.Video.Usecase))
		return
	}
	dir, err := filepath.Abs(a.uploadsDir)
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		a.fail(w, r, fmt.Errorf("uploads directory: %w", err))
		return
	}
	up := &store.Upload{ID: store.NewID("up_"), OrgID: key.OrgID, UserID: key.UserID, Total: -1}
	up.Path = filepath.Join(dir, up.ID+".bin")
	if err := a.store.SaveUpload(r.Context(), up); err != nil {
		a.fail(w, r, err)
		return
	}
	used, err := a.store.CreditsUsed(r.Context(), key.OrgID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	// useAmount and totalAmount are credits of the current month: used so
	// far and the monthly cap.
	writeJSON(w, http.StatusOK, apitypes.Envelope[apitypes.UploadLink]{Data: apitypes.UploadLink{
		URL:         a.publicURL + "/storage/uploads/" + up.ID,
		UploadID:    up.ID,
		DNSURL:      a.publicURL,
		UseAmount:   float64(used),
		TotalAmount: float64(a.monthlyCredits),
	}})
}

func storageNotFound(w http.ResponseWriter, what string) {
	writeError(w, http.StatusNotFound, errNotFound, what+" not found")
}

// startUpload is POST {url} with x-store-resumable: start. It opens a new
// resumable session (any earlier session of the upload stops working and
// its bytes are dropped) and answers 201 with the session address in
// location and its id in x-store-resumable-upload-id.
func (a *API) startUpload(w http.ResponseWriter, r *http.Request) {
	if !strings.EqualFold(strings.TrimSpace(r.Header.Get(apitypes.HeaderResumable)), "start") {
		a.fail(w, r, badField(apitypes.HeaderResumable, "must be start to open a resumable upload session"))
		return
	}
	id := r.PathValue("uploadId")
	unlock := a.uploadLocks.lock(id)
	defer unlock()
	up, err := a.store.GetUpload(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		storageNotFound(w, "upload "+strconv.Quote(id))
		return
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if up.Complete {
		writeError(w, http.StatusConflict, errConflict, "upload "+id+" is already complete; create a new upload link for another file")
		return
	}
	f, err := os.OpenFile(up.Path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		a.fail(w, r, fmt.Errorf("create upload file: %w", err))
		return
	}
	if err := f.Close(); err != nil {
		a.fail(w, r, fmt.Errorf("create upload file: %w", err))
		return
	}
	up.SessionID = store.NewID("ses_")
	up.Received, up.Total = 0, -1
	if err := a.store.SaveUpload(r.Context(), up); err != nil {
		a.fail(w, r, err)
		return
	}
	w.Header().Set("Location", a.publicURL+"/storage/sessions/"+up.SessionID)
	w.Header().Set(apitypes.HeaderResumableUploadID, up.SessionID)
	w.WriteHeader(http.StatusCreated)
}

// putUpload is PUT {location}: the whole file (no Content-Range), one chunk
// ("bytes FIRST-LAST/TOTAL", FIRST equal to the bytes held so far), or a
// status query ("bytes */TOTAL", empty body). Progress is answered as 308
// with "Range: bytes=0-LAST" (no Range while nothing is held), completion as
// 200 with a small JSON body.
func (a *API) putUpload(w http.ResponseWriter, r *http.Request) {
	sid := r.PathValue("sessionId")
	first, err := a.store.GetUploadBySession(r.Context(), sid)
	if errors.Is(err, store.ErrNotFound) {
		storageNotFound(w, "upload session "+strconv.Quote(sid))
		return
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	unlock := a.uploadLocks.lock(first.ID)
	defer unlock()
	// Read again under the lock: another PUT or a new session may have moved it on.
	up, err := a.store.GetUploadBySession(r.Context(), sid)
	if errors.Is(err, store.ErrNotFound) {
		storageNotFound(w, "upload session "+strconv.Quote(sid))
		return
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	cr, err := parseContentRange(r.Header.Get("Content-Range"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if up.Complete {
		uploadDone(w, up)
		return
	}
	if cr.query {
		a.uploadQuery(w, r, up, cr)
		return
	}
	a.uploadBytes(w, r, up, cr)
}

// uploadQuery answers a status query.
func (a *API) uploadQuery(w http.ResponseWriter, r *http.Request, up *store.Upload, cr contentRange) {
	if r.ContentLength > 0 {
		a.fail(w, r, badField("body", "a status query (Content-Range: bytes */TOTAL) carries no body"))
		return
	}
	if err := checkTotal(up, cr.total); err != nil {
		a.fail(w, r, err)
		return
	}
	if up.Total < 0 {
		up.Total = cr.total
		if err := a.store.SaveUpload(r.Context(), up); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	uploadProgress(w, up)
}

// checkTotal refuses a TOTAL that contradicts an earlier one, or that is
// empty or over the size limit.
func checkTotal(up *store.Upload, total int64) error {
	switch {
	case total < 0:
		return nil
	case total == 0:
		return badField("Content-Range", "TOTAL must be above 0: an empty file is not a video")
	case total > maxUploadBytes:
		return badField("Content-Range", "TOTAL %d is over the %d-byte upload limit", total, maxUploadBytes)
	case up.Total >= 0 && total != up.Total:
		return badField("Content-Range", "TOTAL %d differs from the %d bytes announced earlier in this session", total, up.Total)
	}
	return nil
}

// uploadBytes writes a whole-file PUT or one chunk.
func (a *API) uploadBytes(w http.ResponseWriter, r *http.Request, up *store.Upload, cr contentRange) {
	var off, n, total int64
	if !cr.present {
		// The whole file: it replaces whatever an earlier attempt left.
		switch {
		case r.ContentLength == 0:
			a.fail(w, r, badField("body", "is empty: an empty file is not a video"))
			return
		case r.ContentLength > maxUploadBytes:
			a.fail(w, r, badField("Content-Length", "%d is over the %d-byte upload limit", r.ContentLength, maxUploadBytes))
			return
		case r.ContentLength > 0:
			n, total = r.ContentLength, r.ContentLength
		default: // streamed without a length: read up to the limit, plus one byte to notice more
			n, total = maxUploadBytes+1, -1
		}
	} else {
		if cr.first != up.Received {
			a.fail(w, r, badField("Content-Range", "the chunk starts at byte %d but the storage holds %d bytes; resume at byte %d "+
				"(ask with an empty PUT and Content-Range: bytes */TOTAL)", cr.first, up.Received, up.Received))
			return
		}
		if err := checkTotal(up, cr.total); err != nil {
			a.fail(w, r, err)
			return
		}
		off, n, total = cr.first, cr.last-cr.first+1, up.Total
		if cr.total >= 0 {
			total = cr.total
		}
		if r.ContentLength >= 0 && r.ContentLength != n {
			a.fail(w, r, badField("Content-Length", "must equal the %d bytes of Content-Range %s, not %d",
				n, r.Header.Get("Content-Range"), r.ContentLength))
			return
		}
	}

	up.Total = total
	checkpoint := func(received int64) {
		up.Received = received
		if err := a.store.SaveUpload(context.WithoutCancel(r.Context()), up); err != nil {
			a.log.Warn("upload checkpoint", "upload", up.ID, "err", err)
		}
	}
	written, readErr, writeErr := writeAt(up.Path, off, r.Body, n, checkpoint)
	up.Received = off + written
	if writeErr != nil {
		// What reached the disk is unsure: record only what came before.
		up.Received = off
	}
	if up.Total < 0 && !cr.present && readErr == nil && writeErr == nil {
		up.Total = written // a streamed whole file ends where its body ends
	}
	up.Complete = writeErr == nil && readErr == nil && up.Total > 0 && up.Received == up.Total
	// Saved also when the client went away, so a resumed upload continues
	// here; hence not the request's context, which ends with the connection.
	if err := a.store.SaveUpload(context.WithoutCancel(r.Context()), up); err != nil {
		a.fail(w, r, err)
		return
	}
	switch {
	case writeErr != nil:
		a.fail(w, r, fmt.Errorf("upload %s: %w", up.ID, writeErr))
	case readErr != nil:
		a.log.Info("upload interrupted", "upload", up.ID, "received", up.Received, "err", readErr)
		a.fail(w, r, badField("body", "ended after %d of %d bytes (%v); ask for the status with Content-Range: bytes */TOTAL and resume",
			written, n, readErr))
	case !cr.present && r.ContentLength < 0 && written > maxUploadBytes:
		a.fail(w, r, badField("body", "is over the %d-byte upload limit", maxUploadBytes))
	case cr.present && written < n:
		a.fail(w, r, badField("body", "has %d bytes but Content-Range announced %d; resume at byte %d", written, n, up.Received))
	case up.Complete:
		a.log.Info("upload complete", "upload", up.ID, "bytes", up.Received)
		uploadDone(w, up)
	default:
		uploadProgress(w, up)
	}
}

func uploadProgress(w http.ResponseWriter, up *store.Upload) {
	if up.Received > 0 {
		w.Header().Set("Range", "bytes=0-"+strconv.FormatInt(up.Received-1, 10))
	}
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusPermanentRedirect)
}

func uploadDone(w http.ResponseWriter, up *store.Upload) {
	writeJSON(w, http.StatusOK, uploadStatus{UploadID: up.ID, Size: up.Received, Complete: true})
}
