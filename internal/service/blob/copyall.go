package blob

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Roots are the prefixes of every object clipperd keeps (keys.go), what a
// move of its media copies.
func Roots() []string {
	return []string{mediaRoot, uploadsRoot, publishedRoot, brollRoot, installationRoot}
}

// CopyReport says what CopyAll did.
type CopyReport struct {
	Copied, Skipped           int   // objects written, objects already in place
	CopiedBytes, SkippedBytes int64 // their bytes
}

// CopyWorkers is how many objects CopyAll copies at once: a bucket answers
// each request after a round trip, so a few in flight keep the link busy.
const CopyWorkers = 4

// CopyAll copies every object of src under the prefixes into dst, another
// store (a directory into a bucket, say), under the same keys, workers at
// a time (at least one). An object dst already holds with the same size is
// skipped, so a copy cut short is finished by running it again; each object
// written is checked by its size in dst afterwards. progress, when set, is
// called after each object, one call at a time. The first error stops the
// copy.
func CopyAll(ctx context.Context, dst, src Store, prefixes []string, workers int, progress func(Info, CopyReport)) (CopyReport, error) {
	var objects []Info
	for _, prefix := range prefixes {
		listed, err := src.List(ctx, prefix)
		if err != nil {
			return CopyReport{}, fmt.Errorf("list %s: %w", prefix, err)
		}
		objects = append(objects, listed...)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		r        CopyReport
		firstErr error
		wg       sync.WaitGroup
		todo     = make(chan Info)
	)
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range todo {
				copied, err := copyIfMissing(ctx, dst, src, o)
				mu.Lock()
				switch {
				case err != nil:
					if firstErr == nil {
						firstErr = err
					}
					cancel()
				case copied:
					r.Copied++
					r.CopiedBytes += o.Size
				default:
					r.Skipped++
					r.SkippedBytes += o.Size
				}
				if err == nil && progress != nil {
					progress(o, r)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, o := range objects {
		select {
		case todo <- o:
		case <-ctx.Done():
			break feed
		}
	}
	close(todo)
	wg.Wait()
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	return r, firstErr
}

// copyIfMissing copies src's object o into dst unless dst holds it with
// its size, and reports whether it did.
func copyIfMissing(ctx context.Context, dst, src Store, o Info) (bool, error) {
	there, err := dst.Stat(ctx, o.Key)
	switch {
	case err == nil && there.Size == o.Size:
		return false, nil
	case err != nil && !errors.Is(err, ErrNotFound):
		return false, fmt.Errorf("look for %s in the target: %w", o.Key, err)
	}
	in, err := src.Open(ctx, o.Key)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", o.Key, err)
	}
	defer in.Close()
	want := in.Info().Size // as opened: the object may have changed since the listing
	if err := Write(ctx, dst, o.Key, in); err != nil {
		return false, fmt.Errorf("write %s: %w", o.Key, err)
	}
	got, err := dst.Stat(ctx, o.Key)
	if err != nil {
		return false, fmt.Errorf("check %s: %w", o.Key, err)
	}
	if got.Size != want {
		return false, fmt.Errorf("copy of %s holds %d bytes, the source %d", o.Key, got.Size, want)
	}
	return true, nil
}
