package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Names of the files of a post published to a directory.
const (
	clipFile = "clip.mp4"
	postFile = "post.json"
)

// Dir publishes each post to Root/<postAccountId>/<postId>/ as clip.mp4
// (the clip's export render) and post.json (the post's document). It fills a
// temporary directory beside that one and renames it into place, so a post's
// directory appears whole or not at all; finding it already there means an
// earlier attempt published the post, and it is not written again.
type Dir struct {
	Root string // DATA/published
}

// Publish writes p's directory, or finds it written.
func (d Dir) Publish(ctx context.Context, p Post) (Receipt, error) {
	if !plainName(p.PostAccountID) || !plainName(p.ID) {
		return Receipt{}, fmt.Errorf("post %q of account %q: an id is unfit for a directory name", p.ID, p.PostAccountID)
	}
	parent := filepath.Join(d.Root, p.PostAccountID)
	final := filepath.Join(parent, p.ID)
	if at, err := publishedAt(final); err == nil {
		return Receipt{Location: final, PublishedAt: at}, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Receipt{}, err
	}
	// A leftover of an attempt cut short is started again.
	partial := filepath.Join(parent, ".partial-"+p.ID)
	if err := os.RemoveAll(partial); err != nil {
		return Receipt{}, err
	}
	if err := fill(ctx, partial, p); err != nil {
		_ = os.RemoveAll(partial)
		return Receipt{}, fmt.Errorf("post %s: %w", p.ID, err)
	}
	if err := os.Rename(partial, final); err != nil {
		return Receipt{}, fmt.Errorf("publish post %s: %w", p.ID, err)
	}
	if err := syncDir(parent); err != nil {
		return Receipt{}, err
	}
	return Receipt{Location: final, PublishedAt: p.PublishedAt}, nil
}

// fill makes dir with p's clip.mp4 and post.json, synced to disk.
func fill(ctx context.Context, dir string, p Post) error {
	doc, err := json.MarshalIndent(p.Document(""), "", "  ")
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := copyFile(ctx, p.MediaPath, filepath.Join(dir, clipFile)); err != nil {
		return fmt.Errorf("copy the clip: %w", err)
	}
	if err := writeFile(filepath.Join(dir, postFile), append(doc, '\n')); err != nil {
		return err
	}
	return syncDir(dir)
}

// publishedAt reads the publishedAt of the post published in dir;
// fs.ErrNotExist when there is none.
func publishedAt(dir string) (time.Time, error) {
	data, err := os.ReadFile(filepath.Join(dir, postFile))
	if err != nil {
		return time.Time{}, err
	}
	var doc struct {
		PublishedAt time.Time `json:"publishedAt"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return time.Time{}, fmt.Errorf("read %s: %w", filepath.Join(dir, postFile), err)
	}
	return doc.PublishedAt, nil
}

// plainName accepts one path segment that is not hidden: no separators, no dot names.
func plainName(s string) bool {
	return s != "" && !strings.ContainsAny(s, `/\`) && !strings.HasPrefix(s, ".")
}

// copyFile copies src to a new file dst and syncs it. A render is at most
// some tens of megabytes, so the copy is not cut short by ctx; it is not
// begun once ctx ended.
func copyFile(ctx context.Context, src, dst string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return closeSynced(out, err)
}

// writeFile writes data to a new file path and syncs it.
func writeFile(path string, data []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	return closeSynced(f, err)
}

// closeSynced syncs and closes f after a write that returned err, keeping
// the first error.
func closeSynced(f *os.File, err error) error {
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// syncDir makes the entries of dir durable (a rename into it, the files in it).
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	return closeSynced(f, nil)
}
