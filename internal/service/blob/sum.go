package blob

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
)

// ErrDamaged: an object is not what was stored (its size or SHA-256 differs
// from the Sum recorded when it was made). A backend never returns it; the
// checks below do, wrapped in a *DamagedError.
var ErrDamaged = errors.New("blob: damaged object")

// Sum is an object's size and SHA-256 (hex), recorded when it is made so a
// later read can tell a cut or altered file from the one stored.
type Sum struct {
	Size   int64
	SHA256 string
}

// DamagedError says which object is damaged and how.
type DamagedError struct {
	Key string
	Why string // "size 123, recorded 456" or "SHA-256 ..., recorded ..."
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("the stored file %s is damaged: %s", e.Key, e.Why)
}

func (e *DamagedError) Unwrap() error { return ErrDamaged }

// FileSum is the Sum of the local file at path.
func FileSum(path string) (Sum, error) {
	f, err := os.Open(path)
	if err != nil {
		return Sum{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return Sum{}, err
	}
	return Sum{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// PutFileSum is PutFile that returns the Sum of what it stored, read from
// the local file before it goes (a file just written is in the page
// cache: the hash costs no disk read).
func PutFileSum(ctx context.Context, s Store, key, path string) (Sum, error) {
	sum, err := FileSum(path)
	if err != nil {
		return Sum{}, err
	}
	return sum, PutFile(ctx, s, key, path)
}

// Verify reads the whole object key and checks it against want: a
// *DamagedError when it differs. Its size is checked first, from Stat, so
// a cut file costs no read.
func Verify(ctx context.Context, s Store, key string, want Sum) error {
	info, err := s.Stat(ctx, key)
	if err != nil {
		return err
	}
	if info.Size != want.Size {
		return sizeDamage(key, info.Size, want.Size)
	}
	r, err := s.Open(ctx, key)
	if err != nil {
		return err
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, ctxReader{ctx, r}); err != nil {
		return err
	}
	return sumDamage(key, h, want)
}

func sizeDamage(key string, size, want int64) error {
	return &DamagedError{Key: key, Why: fmt.Sprintf("%d bytes, %d when it was made", size, want)}
}

func sumDamage(key string, h hash.Hash, want Sum) error {
	if got := hex.EncodeToString(h.Sum(nil)); got != want.SHA256 {
		return &DamagedError{Key: key, Why: fmt.Sprintf("SHA-256 %s, %s when it was made", got, want.SHA256)}
	}
	return nil
}

// Verifying wraps r, an object opened to be served whole, so that the
// read that would hand out its last bytes fails with a *DamagedError
// instead when what was read does not match want: a server streaming it
// stops short of a whole response, and the client sees a broken transfer,
// never a complete-looking damaged file. The size is checked at once (a
// cut file fails before any byte is served). The hash covers one pass from
// the start; a Seek elsewhere (a range) stops the check, which a whole
// read does not do.
func Verifying(r Reader, want Sum) (*VerifyingReader, error) {
	if size := r.Info().Size; size != want.Size {
		return nil, sizeDamage(r.Info().Key, size, want.Size)
	}
	return &VerifyingReader{Reader: r, want: want, h: sha256.New()}, nil
}

// VerifyingReader is a Reader checked against a Sum (Verifying).
type VerifyingReader struct {
	Reader
	want   Sum
	h      hash.Hash
	read   int64 // hashed so far, from the start
	off    bool  // a range: not checked
	damage error
}

// Damage is the *DamagedError a read returned, nil if none did.
func (v *VerifyingReader) Damage() error { return v.damage }

func (v *VerifyingReader) Seek(offset int64, whence int) (int64, error) {
	pos, err := v.Reader.Seek(offset, whence)
	if err == nil {
		// ServeContent seeks to the end for the size, then back to the start.
		v.h.Reset()
		v.read = 0
		v.off = pos != 0 && whence != io.SeekEnd
	}
	return pos, err
}

func (v *VerifyingReader) Read(p []byte) (int, error) {
	n, err := v.Reader.Read(p)
	if v.off || n == 0 {
		return n, err
	}
	v.h.Write(p[:n])
	v.read += int64(n)
	if v.read >= v.want.Size {
		if v.damage = sumDamage(v.Info().Key, v.h, v.want); v.damage != nil {
			return 0, v.damage
		}
	}
	return n, err
}
