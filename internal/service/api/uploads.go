package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/upload"
)

// quotaStore is what the upload handlers and the storage quota read of the
// store: credits used and the bytes an organization stores.
type quotaStore interface {
	GetUploadBySession(ctx context.Context, sessionID string) (*store.Upload, error)
	CheckStorage(ctx context.Context, orgID string, adding, limit int64) error
	CreditsUsed(ctx context.Context, orgID string) (int64, error)
}

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
	if err := a.stores.quota.CheckStorage(r.Context(), key.OrgID, 0, a.limits.StorageQuota); err != nil {
		a.fail(w, r, err)
		return
	}
	up, err := a.uploads.Create(r.Context(), key.OrgID, key.UserID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	used, err := a.stores.quota.CreditsUsed(r.Context(), key.OrgID)
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
// 200 with a small JSON body. The body is read under a progress deadline
// (progressBody), and a newer request on the upload interrupts its read.
func (a *API) putUpload(w http.ResponseWriter, r *http.Request) {
	if err := a.checkUploadBytes(r.Context(), r.PathValue("sessionId"), r.Header.Get("Content-Range"), r.ContentLength); err != nil {
		a.fail(w, r, err)
		return
	}
	body := newProgressBody(w, r.Body, a.uploadProgress)
	st, err := a.uploads.Put(r.Context(), r.PathValue("sessionId"), upload.Request{
		ContentRange: r.Header.Get("Content-Range"), ContentLength: r.ContentLength, Body: body, Interrupt: body.interrupt,
	})
	body.answering()
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

// DefaultUploadProgressTimeout is the longest an upload body may bring no
// byte when Config.UploadProgressTimeout is 0.
const DefaultUploadProgressTimeout = 30 * time.Second

// progressBody reads an upload PUT's body under a progress deadline instead
// of the server's whole-request ones, which a large file on a slow link
// would outlast: every Read must bring bytes within `every`. interrupt ends
// a waiting Read at once (a newer request on the upload takes over); the
// mutex keeps a Read from pushing the deadline out again after it.
type progressBody struct {
	body  io.Reader
	rc    *http.ResponseController
	every time.Duration

	mu          sync.Mutex
	interrupted bool
}

// errInterrupted is the Read of a body whose request was taken over.
var errInterrupted = errors.New("read interrupted by a newer request on the upload")

// newProgressBody lifts the server's read and write deadlines of the request
// for body's progress deadline. Where the writer cannot set deadlines (a
// test's recorder) the body is read without one.
func newProgressBody(w http.ResponseWriter, body io.Reader, every time.Duration) *progressBody {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // the answer comes after the whole body
	return &progressBody{body: body, rc: rc, every: every}
}

func (b *progressBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	if b.interrupted {
		b.mu.Unlock()
		return 0, errInterrupted
	}
	_ = b.rc.SetReadDeadline(time.Now().Add(b.every))
	b.mu.Unlock()
	n, err := b.body.Read(p)
	if errors.Is(err, os.ErrDeadlineExceeded) && !b.stopped() {
		err = fmt.Errorf("no byte arrived for %s, the upload progress timeout: %w", b.every, err)
	}
	return n, err
}

// interrupt ends the body's read now, and every later one.
func (b *progressBody) interrupt() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.interrupted = true
	_ = b.rc.SetReadDeadline(time.Now())
}

func (b *progressBody) stopped() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.interrupted
}

// answering gives the answer, written once the body is done, a deadline of
// its own.
func (b *progressBody) answering() {
	_ = b.rc.SetWriteDeadline(time.Now().Add(b.every))
}
