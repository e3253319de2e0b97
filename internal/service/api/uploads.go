package api

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/upload"
)

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
	if _, err := decodeValid(w, r, checkUploadLink); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := a.store.CheckStorage(r.Context(), key.OrgID, 0, a.limits.StorageQuota); err != nil {
		a.fail(w, r, err)
		return
	}
	up, err := a.uploads.Create(r.Context(), key.OrgID, key.UserID)
	if err != nil {
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
		TotalAmount: float64(int64(a.limits.MonthlyCredits)),
	}})
}

func checkUploadLink(req *apitypes.UploadLinkRequest) error {
	switch req.Video.Usecase {
	case apitypes.UsecaseLocalUpload:
		return nil
	case "":
		return badField("video.usecase", "is required; %s uploads a local file", apitypes.UsecaseLocalUpload)
	}
	return badField("video.usecase", "must be %s, not %q", apitypes.UsecaseLocalUpload, req.Video.Usecase)
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
	sid, err := a.uploads.Start(r.Context(), r.PathValue("uploadId"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	w.Header().Set("Location", a.publicURL+"/storage/sessions/"+sid)
	w.Header().Set(apitypes.HeaderResumableUploadID, sid)
	w.WriteHeader(http.StatusCreated)
}

// putUpload is PUT {location}: the whole file (no Content-Range), one chunk
// ("bytes FIRST-LAST/TOTAL", FIRST equal to the bytes held so far), or a
// status query ("bytes */TOTAL", empty body). Progress is answered as 308
// with "Range: bytes=0-LAST" (no Range while nothing is held), completion as
// 200 with a small JSON body.
func (a *API) putUpload(w http.ResponseWriter, r *http.Request) {
	if err := a.checkUploadBytes(r.Context(), r.PathValue("sessionId"), r.Header.Get("Content-Range"), r.ContentLength); err != nil {
		a.fail(w, r, err)
		return
	}
	st, err := a.uploads.Put(r.Context(), r.PathValue("sessionId"), upload.Request{
		ContentRange: r.Header.Get("Content-Range"), ContentLength: r.ContentLength, Body: r.Body,
	})
	switch {
	case err != nil:
		a.fail(w, r, err)
	case st.Complete:
		writeJSON(w, http.StatusOK, uploadStatus{UploadID: st.UploadID, Size: st.Received, Complete: true})
	default:
		if st.Received > 0 {
			w.Header().Set("Range", "bytes=0-"+strconv.FormatInt(st.Received-1, 10))
		}
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusPermanentRedirect)
	}
}
