package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// defaultChunkSize is the size of one upload PUT. Each chunk is streamed from
// disk, so it does not bound memory; and a storage that keeps what a broken
// PUT delivered (clipperd syncs every 64 MiB) needs nothing sent again. Every
// PUT ends with the storage syncing the file to disk, so small chunks cost
// throughput: at 16 MiB uploads of 256 and 512 MiB ran at 0.4x and 0.7x curl.
const defaultChunkSize = 1 << 30

// CreateUploadLink asks for an upload address for a local file
// (POST /api/upload-links, usecase LocalUpload).
func (c *Client) CreateUploadLink(ctx context.Context) (*apitypes.UploadLink, error) {
	var link apitypes.UploadLink
	err := c.call(ctx, apiCall{
		method: http.MethodPost, path: "/api/upload-links",
		body: apitypes.UploadLinkRequest{Video: apitypes.UploadLinkVideo{Usecase: apitypes.UsecaseLocalUpload}},
		out:  &link, envelope: true,
	})
	if err != nil {
		return nil, err
	}
	return &link, nil
}

// UploadFile runs the whole local-file upload flow and returns the uploadId to use as videoUrl.
//
// Flow: create an upload link; POST `x-store-resumable: start` to its url for
// a resumable session address (`location`); PUT the file there in chunks with
// Content-Range, reading straight from disk so memory stays constant whatever
// the file size. After a failed PUT the client asks the storage how much it
// holds (`Content-Range: bytes */TOTAL` -> 308 with `Range: bytes=0-N`) and
// resumes from N+1.
func (c *Client) UploadFile(ctx context.Context, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("upload: opening file: %w", err)
	}
	defer func() { _ = f.Close() }() // read-only: a close error loses nothing
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("upload %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("upload %s: not a regular file", path)
	}
	if st.Size() == 0 {
		return "", fmt.Errorf("upload %s: the file is empty", path)
	}

	link, err := c.CreateUploadLink(ctx)
	if err != nil {
		return "", fmt.Errorf("upload %s: %w", path, err)
	}
	if link.URL == "" || link.UploadID == "" {
		return "", fmt.Errorf("upload %s: the upload link answer lacks url or uploadId", path)
	}
	session, err := c.startUpload(ctx, link.URL)
	if err != nil {
		return "", fmt.Errorf("upload %s: %w", path, err)
	}
	if err := c.putFile(ctx, session, f, st.Size()); err != nil {
		return "", fmt.Errorf("upload %s: %w", path, err)
	}
	c.pace.uploaded(link.UploadID, st.Size())
	c.debug(ctx, "clipper upload complete", map[string]any{"upload_id": link.UploadID, "bytes": st.Size()})
	return link.UploadID, nil
}

// startUpload opens a resumable session at uploadURL and returns its absolute
// address. Like any POST it is sent again only when it certainly was not
// received (refused connection) or the storage answered 429.
//
// It shares call's rule for a POST after a transport error (mayResend), not
// the rest of decide: the storage may be a third-party store, whose 429 says
// nothing about the API key's rate (no pause of the shared limiter, no
// concurrent cap), and one budget of policy.maxAttempts bounds all its retries.
func (c *Client) startUpload(ctx context.Context, uploadURL string) (string, error) {
	base, err := url.Parse(uploadURL)
	if err != nil {
		return "", fmt.Errorf("upload link url %q: %w", uploadURL, err)
	}
	for attempt := 1; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, uploadURL, http.NoBody)
		if err != nil {
			return "", fmt.Errorf("starting upload session: %w", err)
		}
		req.ContentLength = 0
		req.Header.Set(apitypes.HeaderResumable, "start")
		c.setStorageHeaders(req)
		resp, body, dur, err := c.send(req)
		c.logStorage(ctx, req, resp, dur, err)
		var retry bool
		switch {
		case err != nil:
			retry = mayResend(idempotent(req.Method), resp != nil, err) && ctx.Err() == nil
			err = fmt.Errorf("starting upload session: %w", err)
		case resp.StatusCode == http.StatusCreated || resp.StatusCode == http.StatusOK:
			loc := resp.Header.Get("Location")
			if loc == "" {
				return "", errors.New("starting upload session: the storage answered without a location header")
			}
			ref, err := url.Parse(loc)
			if err != nil {
				return "", fmt.Errorf("starting upload session: location %q: %w", loc, err)
			}
			session := base.ResolveReference(ref).String()
			c.debug(ctx, "clipper upload session started", map[string]any{
				"location": session, "session_id": resp.Header.Get(apitypes.HeaderResumableUploadID),
			})
			return session, nil
		default:
			retry = resp.StatusCode == http.StatusTooManyRequests
			err = fmt.Errorf("starting upload session: %w", parseError(http.MethodPost, req.URL.Path, resp, body))
		}
		if !retry || attempt >= c.policy.maxAttempts {
			return "", err
		}
		c.retries.Add(1)
		if serr := sleep(ctx, backoff(attempt, c.policy.base, c.policy.max)); serr != nil {
			return "", fmt.Errorf("%w; stopped retrying: %w", err, serr)
		}
	}
}

// putFile sends f to the session in chunks, resuming after failures. It gives
// up after policy.maxAttempts consecutive failures without progress.
func (c *Client) putFile(ctx context.Context, session string, f *os.File, size int64) error {
	var offset int64
	failures := 0
	askStatus := false // the next request asks what the storage holds instead of sending
	fail := func(err error) error {
		failures++
		if failures >= c.policy.maxAttempts {
			return fmt.Errorf("after %d failed attempts at byte %d of %d: %w", failures, offset, size, err)
		}
		c.retries.Add(1)
		if serr := sleep(ctx, backoff(failures, c.policy.base, c.policy.max)); serr != nil {
			return fmt.Errorf("%w; stopped retrying: %w", err, serr)
		}
		return nil
	}
	for {
		var (
			st  uploadState
			err error
		)
		wasStatus := askStatus
		if askStatus {
			st, err = c.putRange(ctx, session, f, -1, -1, size)
		} else {
			st, err = c.putRange(ctx, session, f, offset, min(offset+c.chunkSize, size)-1, size)
		}
		if err != nil {
			var te transientError
			if ctx.Err() != nil || !errors.As(err, &te) {
				return err
			}
			if ferr := fail(err); ferr != nil {
				return ferr
			}
			askStatus = true
			continue
		}
		askStatus = false
		if st.complete {
			return nil
		}
		progressed := st.next > offset
		offset = st.next
		switch {
		case offset >= size:
			// Everything arrived but the storage did not say complete; ask.
			if ferr := fail(fmt.Errorf("the storage holds all %d bytes but did not confirm the upload", size)); ferr != nil {
				return ferr
			}
			askStatus = true
		case progressed:
			failures = 0
		case !wasStatus:
			// A chunk was sent and the storage kept none of it: count it so a
			// storage that never accepts anything cannot loop forever.
			if ferr := fail(fmt.Errorf("the storage kept no bytes past %d", offset)); ferr != nil {
				return ferr
			}
		}
	}
}

// uploadState is what the storage reported after a PUT.
type uploadState struct {
	complete bool
	next     int64 // first byte the storage does not have yet
}

// transientError marks an upload failure worth resuming after (network error,
// 5xx, 429); anything else ends the upload. Unlike decide's rule for a
// request that is not idempotent, any network error of a chunk PUT is worth
// resuming after, because putFile never sends the chunk blindly again: it
// first asks the storage what it holds.
type transientError struct{ err error }

func (e transientError) Error() string { return e.err.Error() }
func (e transientError) Unwrap() error { return e.err }

// putRange PUTs bytes [start, end] of f, or, with start < 0, an empty status
// query (`Content-Range: bytes */size`).
func (c *Client) putRange(ctx context.Context, session string, f *os.File, start, end, size int64) (uploadState, error) {
	var (
		body io.Reader = http.NoBody
		n    int64
		cr   = fmt.Sprintf("bytes */%d", size)
	)
	if start >= 0 {
		n = end - start + 1
		body = io.NewSectionReader(f, start, n)
		cr = fmt.Sprintf("bytes %d-%d/%d", start, end, size)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, session, body)
	if err != nil {
		return uploadState{}, fmt.Errorf("building upload request: %w", err)
	}
	// No GetBody on purpose: the transport then never replays a chunk on its
	// own; after any failure putFile asks the storage what it holds and
	// resumes exactly there.
	req.ContentLength = n
	req.Header.Set("Content-Type", "application/octet-stream")
	req.Header.Set("Content-Range", cr)
	c.setStorageHeaders(req)
	resp, body2, dur, err := c.send(req)
	c.logStorage(ctx, req, resp, dur, err)
	if err != nil {
		return uploadState{}, transientError{fmt.Errorf("PUT %s: %w", cr, err)}
	}
	switch {
	case resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusCreated:
		return uploadState{complete: true}, nil
	case resp.StatusCode == http.StatusPermanentRedirect:
		next, err := parseRangeHeader(resp.Header.Get("Range"))
		if err != nil {
			return uploadState{}, err
		}
		return uploadState{next: next}, nil
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return uploadState{}, transientError{parseError(http.MethodPut, req.URL.Path, resp, body2)}
	default:
		return uploadState{}, parseError(http.MethodPut, req.URL.Path, resp, body2)
	}
}

// parseRangeHeader reads a 308 `Range: bytes=0-N` and returns N+1; no header
// means the storage holds nothing yet.
func parseRangeHeader(v string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	spec, ok := strings.CutPrefix(strings.TrimSpace(v), "bytes=")
	if !ok {
		return 0, fmt.Errorf("upload status: Range header %q does not start with bytes=", v)
	}
	first, last, ok := strings.Cut(spec, "-")
	if !ok || strings.TrimSpace(first) != "0" {
		return 0, fmt.Errorf("upload status: Range header %q is not of the form bytes=0-N", v)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(last), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("upload status: Range header %q has no valid last byte", v)
	}
	return n + 1, nil
}

// setStorageHeaders sends credentials to the upload address only when it is on
// the service's own origin (clipperd serves uploads itself); a third-party
// object store gets a pre-authorized address and must never see the API key.
func (c *Client) setStorageHeaders(req *http.Request) {
	req.Header.Set("User-Agent", c.userAgent)
	if req.URL.Scheme+"://"+req.URL.Host == c.baseHost {
		c.setAuth(req)
	}
}

func (c *Client) logStorage(ctx context.Context, req *http.Request, resp *http.Response, dur time.Duration, err error) {
	fields := map[string]any{
		"method": req.Method, "url": req.URL.Redacted(), "duration_ms": dur.Milliseconds(),
		"content_range": req.Header.Get("Content-Range"),
	}
	if resp != nil {
		fields["status"] = resp.StatusCode
		if r := resp.Header.Get("Range"); r != "" {
			fields["range"] = r
		}
	}
	if err != nil {
		fields["error"] = err
	}
	c.debug(ctx, "clipper upload request", fields)
	c.trace(ctx, "clipper upload request headers", map[string]any{"headers": c.headerFields(req.Header)})
}
