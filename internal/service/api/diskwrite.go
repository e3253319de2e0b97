package api

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// checkpointBytes is how often a long PUT records its progress, so a crash
// of the server itself loses at most this much of an upload.
const checkpointBytes = 64 << 20

// readTracker remembers the error of the request body, to tell a client that
// went away from a full disk.
type readTracker struct {
	r   io.Reader
	err error
}

func (t *readTracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		t.err = err
	}
	return n, err
}

// writeAt streams up to n bytes of body into path at offset off, in constant
// memory. It first cuts the file at off, dropping the tail of an earlier
// attempt that was never recorded. Every checkpointBytes it syncs and calls
// checkpoint with the bytes now safely held; it syncs at the end as well, so
// recorded progress never runs ahead of the disk. A body shorter than n is
// not an error here; the caller compares written with n.
func writeAt(path string, off int64, body io.Reader, n int64, checkpoint func(received int64)) (written int64, readErr, writeErr error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return 0, nil, fmt.Errorf("open upload file: %w", err)
	}
	defer f.Close()
	if err := f.Truncate(off); err != nil {
		return 0, nil, fmt.Errorf("truncate upload file: %w", err)
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return 0, nil, fmt.Errorf("seek upload file: %w", err)
	}
	src := &readTracker{r: body}
	for written < n {
		k, err := io.CopyN(f, src, min(checkpointBytes, n-written))
		written += k
		if err != nil {
			if src.err != nil {
				readErr = src.err
			} else if !errors.Is(err, io.EOF) {
				writeErr = fmt.Errorf("write upload file: %w", err)
			}
			break
		}
		if written < n {
			if err := f.Sync(); err != nil {
				return written, nil, fmt.Errorf("sync upload file: %w", err)
			}
			checkpoint(off + written)
		}
	}
	if err := f.Sync(); err != nil && writeErr == nil {
		writeErr = fmt.Errorf("sync upload file: %w", err)
	}
	if err := f.Close(); err != nil && writeErr == nil {
		writeErr = fmt.Errorf("close upload file: %w", err)
	}
	return written, readErr, writeErr
}
