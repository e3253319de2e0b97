package upload

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

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

// emptyFile creates path, or cuts it to nothing: a new session starts over.
func emptyFile(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("create upload file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("create upload file: %w", err)
	}
	return nil
}

// cutFile cuts path to n bytes when it holds more, so the disk holds no
// bytes the upload's record does not count. A missing file holds none.
func cutFile(path string, n int64) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("upload file: %w", err)
	case st.Size() <= n:
		return nil
	}
	if err := os.Truncate(path, n); err != nil {
		return fmt.Errorf("cut upload file: %w", err)
	}
	return nil
}

// writeAt streams up to n bytes of body into path at offset off, in constant
// memory. It first cuts the file at off, dropping the tail of an earlier
// attempt that was never recorded. Every `every` bytes it syncs and calls
// checkpoint with the bytes now safely held; it syncs at the end as well, so
// recorded progress never runs ahead of the disk. A body shorter than n is
// not an error here; the caller compares written with n.
func writeAt(path string, off int64, body io.Reader, n, every int64, checkpoint func(received int64)) (written int64, readErr, writeErr error) {
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
		k, err := io.CopyN(f, src, min(every, n-written))
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
