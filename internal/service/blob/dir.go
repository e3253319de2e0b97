package blob

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Presigner hands out addresses for keys this process serves over HTTP;
// *medialink.Signer is one (its /media addresses).
type Presigner interface {
	Presign(ctx context.Context, key string, ttl time.Duration) (string, error)
}

// Dir is the local-directory Store: key "a/b/c" is the file Root/a/b/c, the
// layout of a data directory. Writes go to a hidden file beside their key
// (".<name>.part-<random>") and are renamed into place, so an object
// appears whole; List never shows those files.
type Dir struct {
	root  string
	links Presigner // nil: Presign answers ErrNoPresign
}

// NewDir is the store of the files under root (made absolute, so a later
// chdir changes nothing); links, which may be nil, presigns its keys.
func NewDir(root string, links Presigner) (*Dir, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("blob: directory %q: %w", root, err)
	}
	return &Dir{root: abs, links: links}, nil
}

// Root is the directory holding the objects.
func (d *Dir) Root() string { return d.root }

// LocalPath is the file of key (which may not exist yet).
func (d *Dir) LocalPath(key string) (string, error) {
	if !ValidKey(key) {
		return "", fmt.Errorf("%w: %q", ErrInvalidKey, key)
	}
	return filepath.Join(d.root, filepath.FromSlash(key)), nil
}

// dirFile is an opened object.
type dirFile struct {
	*os.File
	info Info
}

func (f dirFile) Info() Info { return f.info }

// Open opens key's file.
func (d *Dir) Open(_ context.Context, key string) (Reader, error) {
	p, err := d.LocalPath(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, notFound(key, err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fs.ErrNotExist
	}
	if err != nil {
		_ = f.Close()
		return nil, notFound(key, err)
	}
	return dirFile{File: f, info: Info{Key: key, Size: fi.Size(), ModTime: fi.ModTime()}}, nil
}

// Stat describes key's file.
func (d *Dir) Stat(_ context.Context, key string) (Info, error) {
	p, err := d.LocalPath(key)
	if err != nil {
		return Info{}, err
	}
	fi, err := os.Stat(p)
	if err == nil && !fi.Mode().IsRegular() {
		err = fs.ErrNotExist
	}
	if err != nil {
		return Info{}, notFound(key, err)
	}
	return Info{Key: key, Size: fi.Size(), ModTime: fi.ModTime()}, nil
}

// dirWriter writes a pending file renamed to final at Commit.
type dirWriter struct {
	f     *os.File
	final string
	done  bool
}

func (w *dirWriter) Write(p []byte) (int, error) { return w.f.Write(p) }

func (w *dirWriter) Commit() error {
	if w.done {
		return errors.New("blob: writer already ended")
	}
	w.done = true
	err := w.f.Sync()
	if err = errors.Join(err, w.f.Close()); err == nil {
		err = os.Rename(w.f.Name(), w.final)
	}
	if err != nil {
		_ = os.Remove(w.f.Name())
		return fmt.Errorf("blob: commit %s: %w", w.final, err)
	}
	return syncDir(filepath.Dir(w.final))
}

func (w *dirWriter) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	return errors.Join(w.f.Close(), os.Remove(w.f.Name()))
}

// Create starts a pending file beside key's.
func (d *Dir) Create(_ context.Context, key string) (Writer, error) {
	final, f, err := d.pending(key)
	if err != nil {
		return nil, err
	}
	return &dirWriter{f: f, final: final}, nil
}

// pending makes the parent directory of key's file and an empty hidden
// file beside it.
func (d *Dir) pending(key string) (string, *os.File, error) {
	final, err := d.LocalPath(key)
	if err != nil {
		return "", nil, err
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return "", nil, err
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	f, err := os.OpenFile(filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+".part-"+hex.EncodeToString(b[:])),
		os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", nil, err
	}
	return final, f, nil
}

// Copy hard-links src's file to dst (the bytes are shared: a 30 GB upload
// becomes a source without a copy), or copies it on a file system without
// links.
func (d *Dir) Copy(ctx context.Context, dst, src string) error {
	from, err := d.LocalPath(src)
	if err != nil {
		return err
	}
	if _, err := os.Stat(from); err != nil {
		return notFound(src, err)
	}
	final, f, err := d.pending(dst)
	if err != nil {
		return err
	}
	tmp := f.Name()
	_ = f.Close()
	_ = os.Remove(tmp)
	if err := os.Link(from, tmp); err == nil {
		if err := os.Rename(tmp, final); err != nil {
			_ = os.Remove(tmp)
			return err
		}
		return nil
	}
	in, err := d.Open(ctx, src)
	if err != nil {
		return err
	}
	defer in.Close()
	return Write(ctx, d, dst, in)
}

// SharesBytes reports whether a's and b's files are one file (hard links
// of each other); false when either is missing.
func (d *Dir) SharesBytes(_ context.Context, a, b string) (bool, error) {
	var infos [2]os.FileInfo
	for i, key := range []string{a, b} {
		p, err := d.LocalPath(key)
		if err != nil {
			return false, err
		}
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		infos[i] = fi
	}
	return os.SameFile(infos[0], infos[1]), nil
}

// PutFile renames the file at path to key's, or copies it when the two are
// on different file systems.
func (d *Dir) PutFile(ctx context.Context, key, path string) error {
	final, err := d.LocalPath(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return err
	}
	err = os.Rename(path, final)
	if !errors.Is(err, syscall.EXDEV) {
		return err
	}
	return moveByCopy(ctx, d, key, path)
}

// Delete removes key's file.
func (d *Dir) Delete(_ context.Context, key string) error {
	p, err := d.LocalPath(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// DeletePrefix removes the directory prefix names, with what it holds.
func (d *Dir) DeletePrefix(_ context.Context, prefix string) (int64, error) {
	dir, err := d.prefixDir(prefix)
	if err != nil {
		return 0, err
	}
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil //nolint:nilerr // a file that vanished counts nothing
		}
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	if err := os.RemoveAll(dir); err != nil {
		return 0, err
	}
	return n, nil
}

// List walks the directory prefix names, skipping pending files.
func (d *Dir) List(_ context.Context, prefix string) ([]Info, error) {
	dir, err := d.prefixDir(prefix)
	if err != nil {
		return nil, err
	}
	var out []Info
	err = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return err
		case strings.HasPrefix(e.Name(), ".") && p != dir:
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		case !e.Type().IsRegular():
			return nil
		}
		fi, err := e.Info()
		if err != nil {
			return nil //nolint:nilerr // removed while listed
		}
		rel, _ := filepath.Rel(d.root, p)
		out = append(out, Info{Key: filepath.ToSlash(rel), Size: fi.Size(), ModTime: fi.ModTime()})
		return nil
	})
	slices.SortFunc(out, func(a, b Info) int { return strings.Compare(a.Key, b.Key) })
	return out, err
}

// Presign asks the Presigner, if any.
func (d *Dir) Presign(ctx context.Context, key string, ttl time.Duration) (string, error) {
	if !ValidKey(key) {
		return "", fmt.Errorf("%w: %q", ErrInvalidKey, key)
	}
	if d.links == nil {
		return "", fmt.Errorf("%w: %s", ErrNoPresign, key)
	}
	return d.links.Presign(ctx, key, ttl)
}

// prefixDir is the directory of prefix.
func (d *Dir) prefixDir(prefix string) (string, error) {
	if !validPrefix(prefix) {
		return "", fmt.Errorf("%w: prefix %q must be a key ending in /", ErrInvalidKey, prefix)
	}
	return filepath.Join(d.root, filepath.FromSlash(strings.TrimSuffix(prefix, "/"))), nil
}

// notFound maps a missing file to ErrNotFound, naming the key.
func notFound(key string, err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ENAMETOOLONG) {
		return fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	return err
}

// syncDir makes a rename into dir durable.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

var _ interface {
	Store
	Local
	FilePutter
} = (*Dir)(nil)

var _ io.ReaderAt = dirFile{}
