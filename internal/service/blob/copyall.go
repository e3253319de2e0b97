package blob

import (
	"context"
	"errors"
	"fmt"
)

// Roots are the prefixes of every object clipperd keeps (keys.go), what a
// move of its media copies.
func Roots() []string { return []string{mediaRoot, uploadsRoot, publishedRoot} }

// CopyReport says what CopyAll did.
type CopyReport struct {
	Copied, Skipped           int   // objects written, objects already in place
	CopiedBytes, SkippedBytes int64 // their bytes
}

// CopyAll copies every object of src under the prefixes into dst, another
// store (a directory into a bucket, say), under the same keys. An object
// dst already holds with the same size is skipped, so a copy cut short is
// finished by running it again; each object written is checked by its size
// in dst afterwards. progress, when set, is called after each object.
func CopyAll(ctx context.Context, dst, src Store, prefixes []string, progress func(Info, CopyReport)) (CopyReport, error) {
	var r CopyReport
	for _, prefix := range prefixes {
		objects, err := src.List(ctx, prefix)
		if err != nil {
			return r, fmt.Errorf("list %s: %w", prefix, err)
		}
		for _, o := range objects {
			there, err := dst.Stat(ctx, o.Key)
			switch {
			case err == nil && there.Size == o.Size:
				r.Skipped++
				r.SkippedBytes += o.Size
			case err == nil || errors.Is(err, ErrNotFound):
				if err := copyObject(ctx, dst, src, o); err != nil {
					return r, err
				}
				r.Copied++
				r.CopiedBytes += o.Size
			default:
				return r, fmt.Errorf("look for %s in the target: %w", o.Key, err)
			}
			if progress != nil {
				progress(o, r)
			}
		}
	}
	return r, nil
}

// copyObject writes src's object o into dst and checks its size there.
func copyObject(ctx context.Context, dst, src Store, o Info) error {
	in, err := src.Open(ctx, o.Key)
	if err != nil {
		return fmt.Errorf("read %s: %w", o.Key, err)
	}
	defer in.Close()
	want := in.Info().Size // as opened: the object may have changed since the listing
	if err := Write(ctx, dst, o.Key, in); err != nil {
		return fmt.Errorf("write %s: %w", o.Key, err)
	}
	got, err := dst.Stat(ctx, o.Key)
	if err != nil {
		return fmt.Errorf("check %s: %w", o.Key, err)
	}
	if got.Size != want {
		return fmt.Errorf("copy of %s holds %d bytes, the source %d", o.Key, got.Size, want)
	}
	return nil
}
