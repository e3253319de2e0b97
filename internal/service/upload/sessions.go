// Package upload is the object-storage side of the local upload flow
// (service-interface.md, "Local file upload flow"): an upload gets a
// resumable session, takes the whole file in one PUT or in chunks sent in
// order (Content-Range "bytes FIRST-LAST/TOTAL", TOTAL "*" while unknown),
// answers status queries ("bytes */TOTAL") with the bytes it holds, and is
// complete when it holds TOTAL bytes. A newer request on an upload takes
// over from one still reading its body (turns.go). What the disk (on a
// bucket: the parts, parts.go) holds of an upload is always what a status
// query reports: a failed or refused PUT
// leaves its durably written prefix when it is a resumable one, and nothing
// beyond it. It knows no HTTP: package api decodes requests into calls and
// maps the errors of errors.go to answers.
package upload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// DefaultMaxBytes is the largest file when Config.MaxBytes is 0: the spec's
// 30 GB, the limit the pipeline applies to every source.
const DefaultMaxBytes = quota.MaxSourceBytes

// defaultCheckpointBytes is how often a long PUT records its progress, so a
// crash of the server itself loses at most this much of an upload.
const defaultCheckpointBytes = 64 << 20

// Store keeps the upload records; *store.Store is one. A miss is
// store.ErrNotFound.
type Store interface {
	SaveUpload(ctx context.Context, u *store.Upload) error
	// AdvanceUpload moves the bytes held from `from` to `to` and records
	// total and complete, only if the upload is still in the session,
	// incomplete, and holds `from` (moved says whether it did).
	AdvanceUpload(ctx context.Context, id, sessionID string, from, to, total int64, complete bool) (moved bool, err error)
	GetUpload(ctx context.Context, id string) (*store.Upload, error)
	GetUploadBySession(ctx context.Context, sessionID string) (*store.Upload, error)
}

// Config configures Sessions.
type Config struct {
	Store Store
	// Files holds the bytes while they arrive, one file per upload under
	// blob.UploadKey: a resumable upload writes by offsets into a local
	// file, so it is a local store (the data directory's blob.Dir).
	Files blob.Local
	// Media is where a complete upload lands, under the same key, before
	// the upload says it is complete: nil or Files itself, where it already
	// is; another directory, where the file is moved; or a bucket, which
	// then also holds the chunks while they arrive (parts.go), so any API
	// node sharing the database and the bucket takes any request and
	// nothing is written in Files.
	Media    blob.Store
	MaxBytes int64        // largest file; 0 = DefaultMaxBytes
	Logger   *slog.Logger // nil = discard
}

// Sessions runs the protocol for every upload. Calls on one upload take
// turns, so two PUTs (or a PUT and a new start) never interleave bytes; the
// newest takes over (turns).
type Sessions struct {
	store      Store
	files      blob.Local
	media      blob.Store // nil: complete uploads stay in files
	parts      bool       // media is a bucket, which holds the chunks as parts
	maxBytes   int64
	checkpoint int64 // bytes between progress records of a long PUT
	log        *slog.Logger
	turns      turns
}

// New returns the protocol over cfg's store and directory.
func New(cfg Config) *Sessions {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	media := cfg.Media
	if same, ok := media.(blob.Local); ok && same == cfg.Files {
		media = nil
	}
	_, local := media.(blob.Local)
	return &Sessions{store: cfg.Store, files: cfg.Files, media: media, parts: media != nil && !local, maxBytes: cfg.MaxBytes, checkpoint: defaultCheckpointBytes, log: cfg.Logger}
}

// Status is what the storage holds of an upload.
type Status struct {
	UploadID string
	Received int64 // contiguous bytes from offset 0
	Complete bool  // Received is the whole file
}

// Request is one PUT to a session.
type Request struct {
	ContentRange  string // the header as sent; "" for the whole file in one PUT
	ContentLength int64  // -1 when not known in advance (a streamed body)
	Body          io.Reader
	// Interrupt ends a Read of Body that is waiting for bytes, at once and
	// from another goroutine, so that a newer request on the upload can take
	// over from a stalled one; nil when Body cannot be interrupted.
	Interrupt func()
}

// Create records a new upload of the org and user, with no session and no
// bytes yet.
func (s *Sessions) Create(ctx context.Context, orgID, userID string) (*store.Upload, error) {
	up := &store.Upload{ID: store.NewID("up_"), OrgID: orgID, UserID: userID, Total: -1}
	up.Key = blob.UploadKey(up.ID)
	if !s.parts {
		path, err := s.file(up)
		if err == nil {
			err = os.MkdirAll(filepath.Dir(path), 0o700)
		}
		if err != nil {
			return nil, fmt.Errorf("uploads directory: %w", err)
		}
	}
	if err := s.store.SaveUpload(ctx, up); err != nil {
		return nil, err
	}
	return up, nil
}

// Start opens a new session of the upload and returns its id. An earlier
// session stops working and its bytes are dropped: the file starts over. A
// PUT still reading its body is taken over, not waited for.
// ErrNotFound for an unknown upload, ErrComplete for a whole one.
func (s *Sessions) Start(ctx context.Context, uploadID string) (sessionID string, err error) {
	_, release := s.turns.take(uploadID, nil)
	defer release()
	up, err := s.store.GetUpload(ctx, uploadID)
	if err != nil {
		return "", lookupError("upload", uploadID, err)
	}
	if up.Complete {
		return "", fmt.Errorf("upload %s is %w; create a new upload link for another file", up.ID, ErrComplete)
	}
	if !s.parts {
		path, err := s.file(up)
		if err == nil {
			err = emptyFile(path)
		}
		if err != nil {
			return "", err
		}
	}
	up.SessionID = store.NewID("ses_")
	up.Received, up.Total = 0, -1
	if err := s.save(ctx, up); err != nil {
		return "", err
	}
	if s.parts {
		// The earlier sessions' parts, and an object an earlier session
		// joined but never recorded (a start raced its completion) or a
		// partial file `clipperd migrate` copied: the upload is incomplete,
		// so nothing under its key is its file. No client holds the new
		// session's id yet, so none of its parts can be among them.
		_, err := s.media.DeletePrefix(ctx, blob.UploadPartsPrefix(up.ID))
		if err == nil {
			err = s.media.Delete(ctx, up.Key)
		}
		if err != nil {
			s.log.Warn("upload: an earlier session's bytes stay until the upload expires", "upload", up.ID, "err", err)
		}
	}
	return up.SessionID, nil
}

// Put applies one PUT to the session's upload: a status query, the whole
// file, or the chunk that starts where the held bytes end. It answers what
// the storage holds afterwards; a complete upload answers so to any PUT. A
// PUT still reading its body on the upload is taken over, not waited for.
// Errors: ErrNotFound, *RequestError (the client sent something to correct
// or resume), anything else a failure of the disk or the store.
func (s *Sessions) Put(ctx context.Context, sessionID string, req Request) (Status, error) {
	up, turn, release, err := s.session(ctx, sessionID, req.Interrupt)
	if err != nil {
		return Status{}, err
	}
	defer release()
	cr, err := parseContentRange(req.ContentRange)
	switch {
	case err != nil:
		return Status{}, err
	case up.Complete:
		return statusOf(up), nil
	case cr.query && s.parts:
		return s.queryParts(ctx, up, cr.total, req.ContentLength)
	case cr.query:
		return s.query(ctx, up, cr.total, req.ContentLength)
	case s.parts:
		return s.writeParts(ctx, up, cr, req, turn)
	}
	return s.write(ctx, up, cr, req, turn)
}

// session loads the upload of sessionID in its turn, taken over from any
// request working on it. It reads the record again in the turn: the request
// taken over or a new start may have moved it on.
func (s *Sessions) session(ctx context.Context, sessionID string, interrupt func()) (*store.Upload, *claim, func(), error) {
	first, err := s.store.GetUploadBySession(ctx, sessionID)
	if err != nil {
		return nil, nil, nil, lookupError("upload session", sessionID, err)
	}
	turn, release := s.turns.take(first.ID, interrupt)
	up, err := s.store.GetUploadBySession(ctx, sessionID)
	if err != nil {
		release()
		return nil, nil, nil, lookupError("upload session", sessionID, err)
	}
	return up, turn, release, nil
}

// lookupError names what a store lookup missed, or failed to read.
func lookupError(kind, id string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%s %q %w", kind, id, ErrNotFound)
	}
	return fmt.Errorf("%s %q: %w", kind, id, err)
}

func statusOf(up *store.Upload) Status {
	return Status{UploadID: up.ID, Received: up.Received, Complete: up.Complete}
}

// query answers a status query. Its TOTAL is recorded when none was yet,
// which completes an upload sent in chunks of unknown total ("bytes 0-4/*")
// that holds that many bytes, as object stores do. A tail on disk that the
// record does not count (a crash between a write and its checkpoint) is
// dropped, so the disk holds what the answer reports.
func (s *Sessions) query(ctx context.Context, up *store.Upload, total, length int64) (Status, error) {
	if length > 0 {
		return Status{}, refuse("body", "a status query (Content-Range: bytes */TOTAL) carries no body")
	}
	if err := s.checkTotal(up, total); err != nil {
		return Status{}, err
	}
	if err := s.reconcile(ctx, up); err != nil {
		return Status{}, err
	}
	if total < up.Received {
		return Status{}, refuse("Content-Range", "TOTAL %d is below the %d bytes the storage holds", total, up.Received)
	}
	path, err := s.file(up)
	if err == nil {
		err = cutFile(path, up.Received)
	}
	if err != nil {
		return Status{}, fmt.Errorf("upload %s: %w", up.ID, err)
	}
	changed := up.Total < 0 && total >= 0
	if changed {
		up.Total = total
	}
	// Also completes an upload whose landing failed at its last PUT.
	if !up.Complete && up.Total > 0 && up.Received == up.Total {
		if err := s.land(ctx, up); err != nil {
			return Status{}, fmt.Errorf("upload %s: %w", up.ID, err)
		}
		up.Complete, changed = true, true
	}
	if changed {
		if err := s.save(ctx, up); err != nil {
			return Status{}, err
		}
		if up.Complete {
			s.log.Info("upload complete", "upload", up.ID, "bytes", up.Received)
		}
	}
	return statusOf(up), nil
}

// checkTotal refuses a TOTAL that contradicts an earlier one, or that is
// empty or over the size limit; -1 (not known yet) passes.
func (s *Sessions) checkTotal(up *store.Upload, total int64) error {
	switch {
	case total < 0:
		return nil
	case total == 0:
		return refuse("Content-Range", "TOTAL must be above 0: an empty file is not a video")
	case total > s.maxBytes:
		return refuse("Content-Range", "TOTAL %d is over the %d-byte upload limit", total, s.maxBytes)
	case up.Total >= 0 && total != up.Total:
		return refuse("Content-Range", "TOTAL %d differs from the %d bytes announced earlier in this session", total, up.Total)
	}
	return nil
}

// span is where the bytes of one PUT go.
type span struct {
	off   int64  // the first byte
	n     int64  // the bytes the body should bring; -1 when unknown (a streamed whole file)
	most  int64  // the most it may bring: n, or the size limit when n is unknown
	over  string // the rule a body bringing more than most breaks
	total int64  // the file's size once this PUT is in; -1 while unknown
	whole bool   // the whole file, without Content-Range
}

// spanOf checks a PUT of bytes against the upload and says where they go.
func (s *Sessions) spanOf(up *store.Upload, cr contentRange, req Request) (span, error) {
	if !cr.present {
		return s.wholeSpan(up, req.ContentLength)
	}
	return s.chunkSpan(up, cr, req)
}

// wholeSpan is the whole file in one PUT: it replaces whatever an earlier
// attempt left, and must agree with a TOTAL the session announced.
func (s *Sessions) wholeSpan(up *store.Upload, length int64) (span, error) {
	switch {
	case length == 0:
		return span{}, refuse("body", "is empty: an empty file is not a video")
	case length > s.maxBytes:
		return span{}, refuse("Content-Length", "%d is over the %d-byte upload limit", length, s.maxBytes)
	case length > 0 && up.Total >= 0 && length != up.Total:
		return span{}, refuse("Content-Length", "%d differs from the TOTAL %d announced earlier in this session", length, up.Total)
	case length > 0:
		return span{n: length, most: length, total: length, whole: true}, nil
	case up.Total >= 0:
		return span{n: up.Total, most: up.Total, total: up.Total, whole: true,
			over: fmt.Sprintf("brings more than the TOTAL %d announced earlier in this session", up.Total)}, nil
	}
	return span{n: -1, most: s.maxBytes, total: -1, whole: true,
		over: fmt.Sprintf("is over the %d-byte upload limit", s.maxBytes)}, nil
}

// chunkSpan is one chunk; chunks come in order, each where the held bytes
// end, and none reaches past the file's TOTAL or the size limit.
func (s *Sessions) chunkSpan(up *store.Upload, cr contentRange, req Request) (span, error) {
	if cr.first != up.Received {
		return span{}, refuse("Content-Range", "the chunk starts at byte %d but the storage holds %d bytes; resume at byte %d "+
			"(ask with an empty PUT and Content-Range: bytes */TOTAL)", cr.first, up.Received, up.Received)
	}
	if err := s.checkTotal(up, cr.total); err != nil {
		return span{}, err
	}
	total := up.Total
	if cr.total >= 0 {
		total = cr.total
	}
	switch {
	case total >= 0 && cr.last >= total: // a chunk of unknown total ("*") after the TOTAL was told
		return span{}, refuse("Content-Range", "LAST %d is beyond the TOTAL %d announced earlier in this session", cr.last, total)
	case cr.last >= s.maxBytes:
		return span{}, refuse("Content-Range", "LAST %d is beyond the %d-byte upload limit", cr.last, s.maxBytes)
	}
	n := cr.last - cr.first + 1
	if req.ContentLength >= 0 && req.ContentLength != n {
		return span{}, refuse("Content-Length", "must equal the %d bytes of Content-Range %s, not %d",
			n, req.ContentRange, req.ContentLength)
	}
	return span{off: cr.first, n: n, most: n, total: total,
		over: fmt.Sprintf("brings more than the %d bytes of Content-Range %s", n, req.ContentRange)}, nil
}

// received is what the body of one PUT brought.
type received struct {
	written   int64
	tooMany   bool  // the body brought more than the PUT may: its bytes are dropped
	readErr   error // the client's body failed: it went away mid-PUT, stalled, or was taken over
	writeErr  error // the disk failed
	takenOver bool  // a newer request on the upload ended the body's read
	lost      bool  // another request counted bytes first (parts.go): these were dropped
}

func (g received) ok() bool { return g.readErr == nil && g.writeErr == nil && !g.tooMany }

// errTakenOver ends the body read of a PUT that a newer request took over.
var errTakenOver = errors.New("a newer request on this upload took over")

// claimedBody reads a PUT's body until a newer request takes over.
type claimedBody struct {
	r    io.Reader
	turn *claim
}

func (b claimedBody) Read(p []byte) (int, error) {
	if b.turn.takenOver() {
		return 0, errTakenOver
	}
	return b.r.Read(p)
}

// write takes a whole-file PUT or one chunk.
func (s *Sessions) write(ctx context.Context, up *store.Upload, cr contentRange, req Request, turn *claim) (Status, error) {
	if err := s.reconcile(ctx, up); err != nil {
		return Status{}, err
	}
	sp, err := s.spanOf(up, cr, req)
	if err != nil {
		return Status{}, err
	}
	// Saved also when the client went away, so a resumed upload continues
	// here; hence not ctx, which ends with the connection.
	ctx = context.WithoutCancel(ctx)
	got := s.receive(ctx, up, sp, claimedBody{r: req.Body, turn: turn})
	got.takenOver = got.readErr != nil && turn.takenOver()
	if up.Complete {
		if err := s.land(ctx, up); err != nil {
			// The bytes stay held; a status query lands them again.
			up.Complete, got.writeErr = false, err
		}
	}
	if err := s.save(ctx, up); err != nil {
		return Status{}, err
	}
	return s.outcome(up, sp, got)
}

// save stores up after a request changed it. When its record is gone (the
// janitor expired the upload while the request ran), the file the request
// wrote is removed too, or nothing would ever list it again.
func (s *Sessions) save(ctx context.Context, up *store.Upload) error {
	err := s.store.SaveUpload(ctx, up)
	if errors.Is(err, store.ErrNotFound) && s.parts {
		return s.gone(ctx, up, err)
	}
	if errors.Is(err, store.ErrNotFound) {
		path, rmErr := s.file(up)
		if rmErr == nil {
			rmErr = os.Remove(path)
		}
		if errors.Is(rmErr, fs.ErrNotExist) {
			rmErr = nil
		}
		if rmErr == nil && s.media != nil && up.Complete {
			rmErr = s.media.Delete(ctx, up.Key)
		}
		if rmErr != nil {
			s.log.Warn("upload expired during a request; its file stays", "upload", up.ID, "err", rmErr)
		}
		return lookupError("upload", up.ID, err)
	}
	return err
}

// receive writes the body to disk and moves the record to what the disk
// safely holds, checkpointing a long body on the way. It reads one byte past
// the most the PUT may bring, to notice a body that brings more.
func (s *Sessions) receive(ctx context.Context, up *store.Upload, sp span, body io.Reader) received {
	up.Total = sp.total
	checkpoint := func(n int64) {
		up.Received = n
		if err := s.store.SaveUpload(ctx, up); err != nil {
			s.log.Warn("upload checkpoint", "upload", up.ID, "err", err)
		}
	}
	var got received
	path, err := s.file(up)
	if err != nil {
		got.writeErr = err
		return got
	}
	got.written, got.readErr, got.writeErr = writeAt(path, sp.off, body, sp.most+1, s.checkpoint, checkpoint)
	got.tooMany = got.written > sp.most
	up.Received = sp.off + got.written
	if got.writeErr != nil || got.tooMany {
		// What reached the disk is unsure, or was never announced: keep only
		// what came before, on disk as in the record.
		up.Received = sp.off
		if err := cutFile(path, sp.off); err != nil {
			s.log.Error("upload: dropping a failed PUT's bytes", "upload", up.ID, "err", err)
		}
	}
	if sp.n < 0 && got.ok() {
		up.Total = got.written // a streamed whole file ends where its body ends
	}
	up.Complete = got.ok() && up.Total > 0 && up.Received == up.Total
	return got
}

// outcome tells the client what became of its bytes.
func (s *Sessions) outcome(up *store.Upload, sp span, got received) (Status, error) {
	switch {
	case got.writeErr != nil:
		return Status{}, fmt.Errorf("upload %s: %w", up.ID, got.writeErr)
	case got.tooMany:
		return Status{}, refuse("body", "%s; none of its bytes were kept, resume at byte %d", sp.over, up.Received)
	case got.takenOver:
		s.log.Info("upload taken over", "upload", up.ID, "received", up.Received)
		return Status{}, refuse("body", "a newer request on this upload took over after %d of %s bytes; %d bytes are held",
			got.written, expected(sp.n), up.Received)
	case got.readErr != nil:
		s.log.Info("upload interrupted", "upload", up.ID, "received", up.Received, "err", got.readErr)
		return Status{}, refuse("body", "ended after %d of %s bytes (%v); ask for the status with Content-Range: bytes */TOTAL and resume",
			got.written, expected(sp.n), got.readErr)
	case !sp.whole && got.written < sp.n:
		return Status{}, refuse("body", "has %d bytes but Content-Range announced %d; resume at byte %d", got.written, sp.n, up.Received)
	case up.Complete:
		s.log.Info("upload complete", "upload", up.ID, "bytes", up.Received)
	}
	return statusOf(up), nil
}

// expected is how many bytes a body should bring, for messages.
func expected(n int64) string {
	if n < 0 {
		return "an unknown number of"
	}
	return strconv.FormatInt(n, 10)
}

// file is the local file of up's bytes.
func (s *Sessions) file(up *store.Upload) (string, error) {
	return s.files.LocalPath(up.Key)
}

// reconcile lowers what the record says is held to what the file holds,
// when that is less: the earlier requests of the upload reached another
// server (several clipperd behind one address without sticky routing), or
// the file was lost. The client then resumes from what is really there
// instead of a chunk landing after a hole.
func (s *Sessions) reconcile(ctx context.Context, up *store.Upload) error {
	if up.Received == 0 {
		return nil
	}
	path, err := s.file(up)
	if err != nil {
		return err
	}
	var held int64
	fi, err := os.Stat(path)
	switch {
	case err == nil:
		held = fi.Size()
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("upload %s: %w", up.ID, err)
	}
	if held >= up.Received || s.landed(ctx, up) {
		return nil
	}
	s.log.Warn("upload: fewer bytes on this server's disk than recorded; the client resumes from them",
		"upload", up.ID, "recorded", up.Received, "held", held)
	up.Received = held
	return s.save(ctx, up)
}

// landed reports whether Media holds up's whole file already.
func (s *Sessions) landed(ctx context.Context, up *store.Upload) bool {
	if s.media == nil || up.Total <= 0 {
		return false
	}
	info, err := s.media.Stat(ctx, up.Key)
	return err == nil && info.Size == up.Total
}

// land puts the complete bytes of up into Media, when they are not there
// already. The record says complete only afterwards, so a project never
// finds a complete upload without its object; a file gone with an object
// of the right size is one a crash kept the record from hearing of.
func (s *Sessions) land(ctx context.Context, up *store.Upload) error {
	if s.media == nil {
		return nil
	}
	path, err := s.file(up)
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) && s.landed(ctx, up) {
		return nil
	}
	if err := blob.PutFile(ctx, s.media, up.Key, path); err != nil {
		return fmt.Errorf("store the complete upload: %w", err)
	}
	return nil
}
