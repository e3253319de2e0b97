// Package blob names and reaches clipperd's media: uploads, imported
// sources, renders, captions and published posts are objects under
// slash-separated keys relative to the store ("media/<projectId>/c01.mp4",
// "uploads/<uploadId>.bin", "published/<postAccountId>/<postId>/post.json"),
// never absolute paths, so a data directory moved, restored or served from
// another machine keeps every object it names. Store is the one interface
// every backend implements (Dir, the local directory; s3blob.Store, an
// S3-compatible bucket) and every backend passes the one suite in
// blobtest.
//
// The layout of the keys is in keys.go, the one place that makes them; the
// database stores them as they are.
package blob

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"time"
)

// Errors of a Store; a backend wraps them so errors.Is finds them.
var (
	// ErrNotFound: no object has the key.
	ErrNotFound = errors.New("blob: no such object")
	// ErrInvalidKey: a key or prefix that is not a plain relative name (see ValidKey).
	ErrInvalidKey = errors.New("blob: invalid key")
	// ErrNoPresign: the store cannot hand out an address for the key (a
	// Dir without a Presigner, or a key its server does not serve).
	ErrNoPresign = errors.New("blob: no presigned address for this key")
)

// Info describes one object.
type Info struct {
	Key     string
	Size    int64
	ModTime time.Time
}

// Store holds objects under keys. Methods are safe for concurrent use. An
// object becomes visible whole (Writer.Commit, Copy) or not at all, and a
// read sees one whole version of it.
type Store interface {
	// Open opens key for reading, sequentially or by ranges (Seek, ReadAt).
	Open(ctx context.Context, key string) (Reader, error)
	// Stat describes key.
	Stat(ctx context.Context, key string) (Info, error)
	// Create starts writing key: nothing is visible until Commit, and Abort
	// (or a Commit that fails) leaves the earlier object, if any, in place.
	Create(ctx context.Context, key string) (Writer, error)
	// Copy makes dst a copy of src, replacing dst atomically.
	Copy(ctx context.Context, dst, src string) error
	// Delete removes key; a key already gone is no error.
	Delete(ctx context.Context, key string) error
	// DeletePrefix removes every object whose key starts with prefix, which
	// ends in "/" (a "folder"), and returns the bytes removed.
	DeletePrefix(ctx context.Context, prefix string) (int64, error)
	// List describes the objects whose keys start with prefix (ending in
	// "/"), in key order.
	List(ctx context.Context, prefix string) ([]Info, error)
	// Presign returns an address from which anyone holding it can GET key
	// (with Range) until ttl has passed, without credentials. For a bucket it
	// is the bucket's presigned URL. For Dir it is clipperd's own signed
	// /media address (package medialink), which serves only renders and
	// captions: other keys answer ErrNoPresign, and workers on the same
	// machine read them through Local instead.
	Presign(ctx context.Context, key string, ttl time.Duration) (string, error)
}

// Reader reads one object by ranges; *os.File is one.
type Reader interface {
	io.ReadSeekCloser
	io.ReaderAt
	// Info describes the object as opened.
	Info() Info
}

// Writer writes one object; Commit or Abort ends it.
type Writer interface {
	io.Writer
	// Commit makes what was written the object under the key, atomically
	// and durably.
	Commit() error
	// Abort drops what was written; after Commit it does nothing.
	Abort() error
}

// Local is implemented by stores whose objects are files on this machine
// (Dir): tools that need a path (ffmpeg, yt-dlp) read them in place, and
// the resumable upload writes its file by offsets. The path may not exist yet.
type Local interface {
	LocalPath(key string) (string, error)
}

// FilePutter is implemented by stores that can take a finished local file
// as an object without copying it (Dir renames it into place).
type FilePutter interface {
	PutFile(ctx context.Context, key, path string) error
}

// Composer is implemented by stores that can make one object of others
// joined in order without reading them through clipperd (a bucket's
// server-side multipart copy): a resumable upload's parts become its file.
type Composer interface {
	// Compose stores the objects srcs, joined in order, as dst. Every
	// source but the last holds at least 5 MiB; there are at most 10,000.
	Compose(ctx context.Context, dst string, srcs []string) error
}

// ByteSharer is implemented by stores whose Copy may share the source's
// bytes instead of storing them again (Dir: a hard link).
type ByteSharer interface {
	// SharesBytes reports whether the objects a and b are the same bytes in
	// storage, so that keeping both costs what keeping one does.
	SharesBytes(ctx context.Context, a, b string) (bool, error)
}

// CopiesShareBytes reports whether a Copy in s is expected to add no bytes
// (the store is a ByteSharer). A copy may still not share (Dir copies bytes
// where links fail): AddedBy measures one that was made.
func CopiesShareBytes(s Store) bool {
	_, ok := s.(ByteSharer)
	return ok
}

// AddedBy is the bytes object dst holds beyond object src: 0 when it
// shares src's bytes, else its size. ErrNotFound when dst is missing.
func AddedBy(ctx context.Context, s Store, dst, src string) (int64, error) {
	info, err := s.Stat(ctx, dst)
	if err != nil {
		return 0, err
	}
	if bs, ok := s.(ByteSharer); ok {
		shared, err := bs.SharesBytes(ctx, dst, src)
		if err != nil {
			return 0, err
		}
		if shared {
			return 0, nil
		}
	}
	return info.Size, nil
}

// PutFile stores the local file at path as key and removes the file: by a
// rename when the store can (FilePutter), else through Create and Commit.
func PutFile(ctx context.Context, s Store, key, path string) error {
	if fp, ok := s.(FilePutter); ok {
		return fp.PutFile(ctx, key, path)
	}
	return moveByCopy(ctx, s, key, path)
}

// moveByCopy stores the file at path as key through Create and Commit,
// then removes the file.
func moveByCopy(ctx context.Context, s Store, key, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := Write(ctx, s, key, f); err != nil {
		return err
	}
	return os.Remove(path)
}

// StoreFile stores the local file at path as key and returns a local file
// of the object for tools to read: the object's own file on a Local store
// (the file is moved there, as PutFile does), else path itself, kept, so a
// download just made in a job's temporary directory is not read back.
func StoreFile(ctx context.Context, s Store, key, path string) (string, error) {
	if l, ok := s.(Local); ok {
		if err := PutFile(ctx, s, key, path); err != nil {
			return "", err
		}
		return l.LocalPath(key)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if err := Write(ctx, s, key, f); err != nil {
		return "", err
	}
	return path, nil
}

// Write stores what r reads as key, whole or not at all. A store that can
// repeat an upload (ReplayWriter) does so for a source that seeks (a file).
func Write(ctx context.Context, s Store, key string, r io.Reader) error {
	if rs, ok := r.(io.ReadSeeker); ok {
		if rw, ok := s.(ReplayWriter); ok {
			return rw.WriteReplayable(ctx, key, rs)
		}
	}
	return write(ctx, s, key, r)
}

// write stores what r reads as key through one Writer.
func write(ctx context.Context, s Store, key string, r io.Reader) error {
	w, err := s.Create(ctx, key)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, ctxReader{ctx, r}); err != nil {
		return errors.Join(err, w.Abort())
	}
	return w.Commit()
}

// LocalFile is a path from which tools read key: the object itself on a
// Local store, else a copy made in dir (a per-job temporary directory,
// removed with it).
func LocalFile(ctx context.Context, s Store, key, dir string) (string, error) {
	if l, ok := s.(Local); ok {
		p, err := l.LocalPath(key)
		if err != nil {
			return "", err
		}
		if _, err := os.Stat(p); err != nil {
			return "", notFound(key, err)
		}
		return p, nil
	}
	in, err := s.Open(ctx, key)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.CreateTemp(dir, "blob-*-"+baseName(key))
	if err != nil {
		return "", err
	}
	_, err = io.Copy(out, ctxReader{ctx, in})
	if err = errors.Join(err, out.Close()); err != nil {
		_ = os.Remove(out.Name())
		return "", err
	}
	return out.Name(), nil
}

// ValidKey accepts a key: slash-separated segments, none empty, none
// starting with a dot (".", "..", and names a backend keeps for itself),
// no backslash or NUL, not longer than 1024 bytes (S3's limit).
func ValidKey(key string) bool {
	if key == "" || len(key) > 1024 || strings.ContainsAny(key, "\\\x00") {
		return false
	}
	for seg := range strings.SplitSeq(key, "/") {
		if seg == "" || strings.HasPrefix(seg, ".") {
			return false
		}
	}
	return true
}

// validPrefix accepts a prefix: a valid key followed by "/".
func validPrefix(prefix string) bool {
	p, ok := strings.CutSuffix(prefix, "/")
	return ok && ValidKey(p)
}

// baseName is the last segment of key.
func baseName(key string) string { return key[strings.LastIndexByte(key, '/')+1:] }

// ctxReader stops a long copy when ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// LocalStore is a Store whose objects are also local files (Dir): where
// resumable uploads are written by offsets, whichever store they land in.
type LocalStore interface {
	Store
	Local
}
