package blob

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency"
)

// TransientClassifier is implemented by stores whose server can answer
// "try again" (s3blob: a 5xx, SlowDown): Transient reports whether err is
// such an answer, or no answer at all (a connection refused or cut).
type TransientClassifier interface {
	Transient(err error) bool
}

// ReplayWriter is implemented by stores that can store a body read from
// a seekable source again from its start when an attempt fails (a
// retrying store); Write uses it for files, never for a stream.
type ReplayWriter interface {
	WriteReplayable(ctx context.Context, key string, r io.ReadSeeker) error
}

// WithRetry wraps s so that its calls that fail transiently (see
// Transient) are tried again on r's curve, within r's window: the bucket
// away for less than the window costs the operation a wait, not its
// failure. Every call repeated is idempotent: reads, a Stat, a Copy or a
// Compose (the object is replaced whole), a Delete, a PutFile of a file
// (read again from its start). A Writer from Create streams what it is
// given and is not repeated; Write repeats a whole upload only when its
// source can be read again (ReplayWriter). Readers repeat a failed Read
// from the offset reached (s3blob's open a new GET from there) and a
// failed ReadAt whole. The capabilities of s (FilePutter, Composer) are
// kept; a Local store is returned as it is: its files have no blips.
func WithRetry(s Store, r *dependency.Retry) Store {
	if _, local := s.(Local); local {
		return s
	}
	rs := &retrying{inner: s, retry: r}
	if c, ok := s.(Composer); ok {
		return &retryingComposer{rs, c}
	}
	return rs
}

// Transient reports whether err from s is worth another attempt: no
// answer (a connection refused, reset or timed out) or the server's own
// "try again". A missing object, an invalid key and every other answer
// (access denied) are final.
func Transient(s Store, err error) bool {
	if err == nil || errors.Is(err, ErrNotFound) || errors.Is(err, ErrInvalidKey) || errors.Is(err, ErrNoPresign) {
		return false
	}
	if c, ok := s.(TransientClassifier); ok {
		return c.Transient(err)
	}
	return dependency.NetworkError(err)
}

// retrying is the Store WithRetry returns.
type retrying struct {
	inner Store
	retry *dependency.Retry
}

// Unwrap is the store retried.
func (s *retrying) Unwrap() Store { return s.inner }

func (s *retrying) transient(err error) bool { return Transient(s.inner, err) }

func (s *retrying) do(ctx context.Context, op func(context.Context) error) error {
	return s.retry.Do(ctx, s.transient, op)
}

func (s *retrying) Open(ctx context.Context, key string) (Reader, error) {
	var r Reader
	err := s.do(ctx, func(ctx context.Context) (err error) {
		r, err = s.inner.Open(ctx, key)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &retryingReader{Reader: r, ctx: ctx, s: s}, nil
}

func (s *retrying) Stat(ctx context.Context, key string) (Info, error) {
	var info Info
	err := s.do(ctx, func(ctx context.Context) (err error) {
		info, err = s.inner.Stat(ctx, key)
		return err
	})
	return info, err
}

// Create starts a streamed write, which is not repeated: what was
// written is gone from the caller. Write repeats whole uploads of files.
func (s *retrying) Create(ctx context.Context, key string) (Writer, error) {
	var w Writer
	err := s.do(ctx, func(ctx context.Context) (err error) {
		w, err = s.inner.Create(ctx, key)
		return err
	})
	return w, err
}

func (s *retrying) Copy(ctx context.Context, dst, src string) error {
	return s.do(ctx, func(ctx context.Context) error { return s.inner.Copy(ctx, dst, src) })
}

func (s *retrying) Delete(ctx context.Context, key string) error {
	return s.do(ctx, func(ctx context.Context) error { return s.inner.Delete(ctx, key) })
}

// DeletePrefix adds up the bytes each attempt removed: a later attempt
// no longer finds what an earlier one deleted.
func (s *retrying) DeletePrefix(ctx context.Context, prefix string) (int64, error) {
	var total int64
	err := s.do(ctx, func(ctx context.Context) error {
		n, err := s.inner.DeletePrefix(ctx, prefix)
		total += n
		return err
	})
	return total, err
}

func (s *retrying) List(ctx context.Context, prefix string) ([]Info, error) {
	var out []Info
	err := s.do(ctx, func(ctx context.Context) (err error) {
		out, err = s.inner.List(ctx, prefix)
		return err
	})
	return out, err
}

func (s *retrying) Presign(ctx context.Context, key string, ttl time.Duration) (string, error) {
	var u string
	err := s.do(ctx, func(ctx context.Context) (err error) {
		u, err = s.inner.Presign(ctx, key, ttl)
		return err
	})
	return u, err
}

// PutFile uploads the file again from its start after a transient
// failure: the inner store removes it only once it is stored.
func (s *retrying) PutFile(ctx context.Context, key, path string) error {
	if fp, ok := s.inner.(FilePutter); ok {
		return s.do(ctx, func(ctx context.Context) error { return fp.PutFile(ctx, key, path) })
	}
	return moveByCopy(ctx, s, key, path)
}

// WriteReplayable stores r as key, seeking r back to where it started
// before each attempt; a source that cannot seek is written once.
func (s *retrying) WriteReplayable(ctx context.Context, key string, r io.ReadSeeker) error {
	start, err := r.Seek(0, io.SeekCurrent)
	if err != nil {
		return write(ctx, s.inner, key, r)
	}
	return s.do(ctx, func(ctx context.Context) error {
		if _, err := r.Seek(start, io.SeekStart); err != nil {
			return err
		}
		return write(ctx, s.inner, key, r)
	})
}

// retryingComposer is a retrying store whose inner store composes.
type retryingComposer struct {
	*retrying
	composer Composer // the inner store
}

// Compose is repeated whole: dst is replaced at once or not at all.
func (s *retryingComposer) Compose(ctx context.Context, dst string, srcs []string) error {
	return s.do(ctx, func(ctx context.Context) error { return s.composer.Compose(ctx, dst, srcs) })
}

// retryingReader repeats the reads of a retrying store's reader.
type retryingReader struct {
	Reader
	ctx context.Context
	s   *retrying
}

// Read repeats a Read that failed transiently with nothing read; one that
// read something returns it, and the next Read continues from there.
func (r *retryingReader) Read(p []byte) (int, error) {
	var n int
	err := r.s.do(r.ctx, func(context.Context) error {
		var err error
		n, err = r.Reader.Read(p)
		if n > 0 && err != nil && err != io.EOF && r.s.transient(err) {
			return nil
		}
		return err
	})
	return n, err
}

func (r *retryingReader) ReadAt(p []byte, off int64) (int, error) {
	var n int
	err := r.s.do(r.ctx, func(context.Context) error {
		var err error
		n, err = r.Reader.ReadAt(p, off)
		return err
	})
	return n, err
}

var (
	_ Store        = (*retrying)(nil)
	_ FilePutter   = (*retrying)(nil)
	_ ReplayWriter = (*retrying)(nil)
	_ Composer     = (*retryingComposer)(nil)
)
