package upload

// The resumable upload on a bucket. An object store cannot write at an
// offset, and the API nodes sharing one database and one bucket each take
// any request, so every accepted stretch of bytes is an object of its own
// under the session's prefix (partKey), and the record's received count is
// moved on by a conditional update (Store.AdvanceUpload) only once that
// object is stored: whichever node answers reads what is held from the
// database, and of two requests racing to store the same bytes exactly one
// counts. The request that completes the file assembles the parts into
// blob.UploadKey, records the upload complete, then deletes the parts.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// part is one stored stretch of an upload: bytes [off, end) of the file.
type part struct {
	key      string
	off, end int64
}

// sessionPrefix is the prefix of the parts of up's current session: a new
// session starts over without meeting the parts of an earlier one.
func sessionPrefix(up *store.Upload) string {
	return blob.UploadPartsPrefix(up.ID) + up.SessionID + "/"
}

// partKey names a part of up starting at byte off; its size says where it
// ends. The offset is zero-padded so listing order is file order; the
// random tail keeps two requests racing with the same range from writing
// one object, so the one whose bytes were not counted deletes only its own.
func partKey(up *store.Upload, off int64) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s%020d-%s", sessionPrefix(up), off, hex.EncodeToString(b[:]))
}

// parsePart reads the range from a part's key; false for a foreign object.
func parsePart(prefix string, info blob.Info) (part, bool) {
	name, ok := strings.CutPrefix(info.Key, prefix)
	if !ok {
		return part{}, false
	}
	num, _, ok := strings.Cut(name, "-")
	off, err := strconv.ParseInt(num, 10, 64)
	if !ok || err != nil || off < 0 || info.Size <= 0 {
		return part{}, false
	}
	return part{key: info.Key, off: off, end: off + info.Size}, true
}

// chain lists the parts of up's session that hold its first `upTo` bytes,
// in order, and how many bytes from offset 0 the stored parts cover. A part
// a crash kept from being counted or deleted may overlap others; the search
// walks every way from 0 and takes one that reaches upTo.
func (s *Sessions) chain(ctx context.Context, up *store.Upload, upTo int64) ([]part, int64, error) {
	prefix := sessionPrefix(up)
	infos, err := s.media.List(ctx, prefix)
	if err != nil {
		return nil, 0, fmt.Errorf("list the parts of upload %s: %w", up.ID, err)
	}
	from := map[int64][]part{}
	for _, info := range infos {
		if p, ok := parsePart(prefix, info); ok {
			from[p.off] = append(from[p.off], p)
		}
	}
	covered := int64(0)
	dead := map[int64]bool{} // offsets from which no way reaches upTo
	var walk func(off int64) []part
	walk = func(off int64) []part {
		covered = max(covered, off)
		if off == upTo {
			return []part{}
		}
		if dead[off] {
			return nil
		}
		for _, p := range from[off] {
			if p.end > upTo {
				continue
			}
			if rest := walk(p.end); rest != nil {
				return append([]part{p}, rest...)
			}
		}
		dead[off] = true
		return nil
	}
	parts := walk(0)
	if parts == nil {
		return nil, covered, nil
	}
	return parts, upTo, nil
}

// receiveParts stores the body as parts of at most s.checkpoint bytes,
// counting each in the record as soon as it is stored, so a crash of the
// server loses at most one part and a status query on any node reports
// what is stored. It reads one byte past the most the PUT may bring, to
// notice a body that brings more; then the whole PUT's bytes are dropped.
// The error is the record gone (the janitor expired the upload).
func (s *Sessions) receiveParts(ctx context.Context, up *store.Upload, sp span, body io.Reader) (received, error) {
	var got received
	held := sp.off
	var mine []string // the parts of this PUT
	src := &readTracker{r: body}
	for got.written <= sp.most {
		want := min(s.checkpoint, sp.most+1-got.written)
		key := partKey(up, held)
		n, stored := s.storePart(ctx, key, src, want, sp.most, &got)
		if !stored {
			break
		}
		moved, err := s.store.AdvanceUpload(ctx, up.ID, up.SessionID, held, held+n, sp.total, false)
		if err != nil || !moved {
			s.deleteParts(ctx, up, key)
			if err != nil {
				return got, s.gone(ctx, up, err)
			}
			got.lost = true
			break
		}
		held += n
		mine = append(mine, key)
		if got.readErr != nil || n < want {
			break // the body failed, or ended
		}
	}
	return got, s.settleReceived(ctx, up, sp, held, mine, got)
}

// storePart copies up to want bytes of src into a new part at key and
// commits it, recording in got what the body brought and how it failed. It
// reports the bytes stored and whether the part was committed: a part that
// would take the body past most, an empty one, or one whose write failed is
// aborted.
func (s *Sessions) storePart(ctx context.Context, key string, src *readTracker, want, most int64, got *received) (int64, bool) {
	w, err := s.media.Create(ctx, key)
	if err != nil {
		got.writeErr = fmt.Errorf("store a part: %w", err)
		return 0, false
	}
	n, err := io.CopyN(w, src, want)
	got.written += n
	switch {
	case src.err != nil:
		got.readErr = src.err
	case err != nil && !errors.Is(err, io.EOF):
		got.writeErr = fmt.Errorf("store a part: %w", err)
	}
	if got.written > most {
		got.tooMany = true
	}
	if n == 0 || got.writeErr != nil || got.tooMany {
		got.writeErr = errors.Join(got.writeErr, w.Abort())
		return n, false
	}
	if err := w.Commit(); err != nil {
		got.writeErr = fmt.Errorf("store a part: %w", err)
		return n, false
	}
	return n, true
}

// settleReceived sets up's counts after a PUT whose parts, mine, took the
// record to held: a PUT that broke its announced length counts for nothing,
// and a streamed whole file's size is where its body ended.
func (s *Sessions) settleReceived(ctx context.Context, up *store.Upload, sp span, held int64, mine []string, got received) error {
	up.Received, up.Total = held, sp.total
	if got.tooMany && held > sp.off {
		// The PUT broke its announced length: none of its bytes count.
		if _, err := s.store.AdvanceUpload(ctx, up.ID, up.SessionID, held, sp.off, sp.total, false); err != nil {
			s.log.Error("upload: dropping a refused PUT's bytes", "upload", up.ID, "err", err)
		}
		s.deleteParts(ctx, up, mine...)
		up.Received = sp.off
	}
	if sp.n < 0 && got.ok() && !got.lost {
		// A streamed whole file ends where its body ends.
		up.Total = got.written
		if _, err := s.store.AdvanceUpload(ctx, up.ID, up.SessionID, held, held, up.Total, false); err != nil {
			return s.gone(ctx, up, err)
		}
	}
	up.Complete = got.ok() && !got.lost && up.Total > 0 && up.Received == up.Total
	return nil
}

// deleteParts removes parts of up that no record counts; a failure is
// logged, the janitor removes them with the upload.
func (s *Sessions) deleteParts(ctx context.Context, up *store.Upload, keys ...string) {
	for _, key := range keys {
		if err := s.media.Delete(ctx, key); err != nil {
			s.log.Warn("upload: a part no record counts stays until the upload expires", "upload", up.ID, "key", key, "err", err)
		}
	}
}

// gone is the error of a record that went away under a request (expired by
// the janitor, which deletes the parts it knows of): the parts of the
// upload stored since go too.
func (s *Sessions) gone(ctx context.Context, up *store.Upload, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		if _, rmErr := s.media.DeletePrefix(ctx, blob.UploadPartsPrefix(up.ID)); rmErr != nil {
			s.log.Warn("upload expired during a request; its parts stay", "upload", up.ID, "err", rmErr)
		}
		return lookupError("upload", up.ID, err)
	}
	return fmt.Errorf("upload %s: %w", up.ID, err)
}

// writeParts takes a whole-file PUT or one chunk on a bucket.
func (s *Sessions) writeParts(ctx context.Context, up *store.Upload, cr contentRange, req Request, turn *claim) (Status, error) {
	sp, err := s.spanOf(up, cr, req)
	if err != nil {
		return Status{}, err
	}
	// Stored also when the client went away, so a resumed upload continues
	// here; hence not ctx, which ends with the connection.
	ctx = context.WithoutCancel(ctx)
	if sp.whole && up.Received > 0 {
		// The whole file replaces what an earlier attempt of the session left.
		moved, err := s.store.AdvanceUpload(ctx, up.ID, up.SessionID, up.Received, 0, up.Total, false)
		if err != nil {
			return Status{}, s.gone(ctx, up, err)
		}
		if !moved {
			return Status{}, s.overtaken(ctx, up)
		}
		if _, err := s.media.DeletePrefix(ctx, sessionPrefix(up)); err != nil {
			return Status{}, fmt.Errorf("upload %s: drop the earlier attempt: %w", up.ID, err)
		}
		up.Received = 0
	}
	got, err := s.receiveParts(ctx, up, sp, claimedBody{r: req.Body, turn: turn})
	if err != nil {
		return Status{}, err
	}
	got.takenOver = got.readErr != nil && turn.takenOver()
	if got.lost {
		return Status{}, s.overtaken(ctx, up)
	}
	if up.Complete {
		up.Complete = false // until the whole object is stored
		if err := s.completeParts(ctx, up); err != nil {
			return Status{}, err
		}
	}
	return s.outcome(up, sp, got)
}

// queryParts answers a status query from the record, which every node
// reads alike; as query does, it records a TOTAL told first here, and
// completes an upload that holds TOTAL bytes (sent with TOTAL "*", or
// whose completion failed at its last PUT).
func (s *Sessions) queryParts(ctx context.Context, up *store.Upload, total, length int64) (Status, error) {
	if length > 0 {
		return Status{}, refuse("body", "a status query (Content-Range: bytes */TOTAL) carries no body")
	}
	if err := s.checkTotal(up, total); err != nil {
		return Status{}, err
	}
	if total < up.Received {
		return Status{}, refuse("Content-Range", "TOTAL %d is below the %d bytes the storage holds", total, up.Received)
	}
	if up.Total < 0 && total >= 0 {
		moved, err := s.store.AdvanceUpload(ctx, up.ID, up.SessionID, up.Received, up.Received, total, false)
		if err != nil {
			return Status{}, s.gone(ctx, up, err)
		}
		if !moved {
			return Status{}, s.overtaken(ctx, up)
		}
		up.Total = total
	}
	if up.Total > 0 && up.Received == up.Total {
		if err := s.completeParts(ctx, up); err != nil {
			return Status{}, err
		}
		s.log.Info("upload complete", "upload", up.ID, "bytes", up.Received)
	}
	return statusOf(up), nil
}

// overtaken is the answer to a request whose bytes another request on the
// upload (on this node or another) counted first: where to resume.
func (s *Sessions) overtaken(ctx context.Context, up *store.Upload) error {
	now, err := s.store.GetUploadBySession(ctx, up.SessionID)
	if err != nil {
		return lookupError("upload session", up.SessionID, err)
	}
	return refuse("Content-Range", "another request on this upload stored its bytes first; the storage holds %d bytes, "+
		"resume at byte %d (ask with an empty PUT and Content-Range: bytes */TOTAL)", now.Received, now.Received)
}

// completeParts makes the whole file blob.UploadKey out of up's parts,
// then records the upload complete, then deletes the parts: a project
// never finds a complete upload without its object.
func (s *Sessions) completeParts(ctx context.Context, up *store.Upload) error {
	if err := s.assemble(ctx, up); err != nil {
		return err
	}
	moved, err := s.store.AdvanceUpload(ctx, up.ID, up.SessionID, up.Total, up.Total, up.Total, true)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			_ = s.media.Delete(ctx, up.Key)
		}
		return s.gone(ctx, up, err)
	}
	if !moved {
		// Another request completed it first, or a new session began.
		now, err := s.store.GetUploadBySession(ctx, up.SessionID)
		if err != nil {
			return lookupError("upload session", up.SessionID, err)
		}
		if !now.Complete {
			return s.overtaken(ctx, up)
		}
	}
	up.Complete = true
	if _, err := s.media.DeletePrefix(ctx, blob.UploadPartsPrefix(up.ID)); err != nil {
		s.log.Warn("upload complete; its parts stay until it expires", "upload", up.ID, "err", err)
	}
	return nil
}

// assemble stores the parts holding up's Total bytes, in order, as up.Key.
// When they do not (parts lost, or an upload begun by a release that kept
// chunks on one node's disk), the record goes back to the bytes the parts
// hold and the client is told to resume there, never to finish after a hole.
func (s *Sessions) assemble(ctx context.Context, up *store.Upload) error {
	parts, covered, err := s.chain(ctx, up, up.Total)
	if err != nil {
		return err
	}
	if parts == nil {
		if s.landed(ctx, up) {
			return nil // assembled by a request whose record update did not happen
		}
		if _, err := s.store.AdvanceUpload(ctx, up.ID, up.SessionID, up.Received, covered, up.Total, false); err != nil {
			return s.gone(ctx, up, err)
		}
		s.log.Warn("upload: fewer bytes stored than recorded; the client resumes from them",
			"upload", up.ID, "recorded", up.Received, "held", covered)
		up.Received = covered
		return refuse("Content-Range", "the storage holds %d bytes of this upload, not %d; resume at byte %d "+
			"(ask with an empty PUT and Content-Range: bytes */TOTAL)", covered, up.Total, covered)
	}
	if c, ok := s.media.(blob.Composer); ok && composable(parts) {
		keys := make([]string, len(parts))
		for i, p := range parts {
			keys[i] = p.key
		}
		if err := c.Compose(ctx, up.Key, keys); err != nil {
			return fmt.Errorf("upload %s: store the complete upload: %w", up.ID, err)
		}
		return nil
	}
	w, err := s.media.Create(ctx, up.Key)
	if err != nil {
		return fmt.Errorf("upload %s: store the complete upload: %w", up.ID, err)
	}
	for _, p := range parts {
		if err := copyPart(ctx, s.media, w, p); err != nil {
			return errors.Join(fmt.Errorf("upload %s: store the complete upload: %w", up.ID, err), w.Abort())
		}
	}
	if err := w.Commit(); err != nil {
		return fmt.Errorf("upload %s: store the complete upload: %w", up.ID, err)
	}
	return nil
}

// copyPart appends part p to w.
func copyPart(ctx context.Context, media blob.Store, w io.Writer, p part) error {
	r, err := media.Open(ctx, p.key)
	if err != nil {
		return err
	}
	defer r.Close()
	n, err := io.Copy(w, r)
	if err == nil && n != p.end-p.off {
		err = fmt.Errorf("part %s holds %d bytes, not %d", p.key, n, p.end-p.off)
	}
	return err
}

// composable reports whether a bucket can join parts server-side: S3's
// multipart copy takes at most 10,000 sources of at least 5 MiB but the last.
func composable(parts []part) bool {
	if len(parts) > 10000 {
		return false
	}
	for _, p := range parts[:len(parts)-1] {
		if p.end-p.off < 5<<20 {
			return false
		}
	}
	return true
}
